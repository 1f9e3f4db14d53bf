// An organization's export jobs after kick-off: status, cancellation and file download.
// Each job is its ExportJob Durable Object, reached only through here.
import type { Env } from "../../platform/env";
import { notFound } from "../../platform/errors";
import { orgObject } from "../../platform/durable-objects/object-names";
import type { FhirService } from "../fhir";
import type { Principal } from "../tenancy";
import type { ExportJobState } from "./job";

export function exportJob(env: Env, orgId: string, jobId: string) {
  return orgObject(env.EXPORT_JOB, orgId, jobId);
}

/** The job of this organization, or 404: another org's id looks exactly like an unknown one. */
export async function visibleExport(env: Env, principal: Principal, jobId: string): Promise<ExportJobState> {
  const orgId = principal.orgId;
  const state = await exportJob(env, orgId, jobId).snapshot(orgId);
  // A SMART client sees its own exports only (the Bulk Data IG: status and files go to the client that asked).
  const foreignClient = principal.client !== undefined && state?.requestedBy.client?.id !== principal.client.id;
  if (!state || state.orgId !== orgId || state.status === "cancelled" || foreignClient) {
    throw notFound(`No export ${jobId}`, "EXPORT_NOT_FOUND");
  }
  return state;
}

/** Cancels a running export or deletes a finished one's files. */
export async function cancelExport(env: Env, principal: Principal, jobId: string): Promise<void> {
  await visibleExport(env, principal, jobId);
  if (!(await exportJob(env, principal.orgId, jobId).cancel(principal.orgId))) throw notFound(`No export ${jobId}`, "EXPORT_NOT_FOUND");
}

/** One file of a completed export (gzip NDJSON as stored), its download audited; 404 when there is none. */
export async function downloadExportFile(env: Env, store: FhirService, jobId: string, file: string): Promise<R2ObjectBody> {
  const state = await visibleExport(env, store.principal, jobId);
  const entry = [...state.files, ...state.errorFiles].find((f) => f.name === file);
  const object = entry && state.status === "completed" ? await env.BLOBS.get(entry.key) : null;
  if (!object) throw notFound(`No file ${file} in export ${jobId}`, "EXPORT_FILE_NOT_FOUND");
  await store.recordAudit({ interaction: "operation", query: `$export download ${jobId}/${file}`, outcome: "0" });
  return object;
}
