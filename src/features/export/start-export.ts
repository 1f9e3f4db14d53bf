// The Bulk Data kick-off use case: parse the request, resolve a Group's members, take one of
// the organization's export slots, start the job's Durable Object, audit the kick-off.
import type { Env } from "../../platform/env";
import type { FhirService } from "../fhir";
import { acquireSlotOrThrow, releaseSlot } from "../tenancy";
import { EXPORT_SLOT_LEASE_MS, type ExportJobState, requesterRecordOf } from "./job";
import { exportJob } from "./jobs";
import { recordExport } from "./export-index";
import { type KickoffInput, parseKickoff } from "./kickoff";

export interface KickoffContext {
  env: Env;
  /** The caller's FHIR store: reads the Group, records the audit. */
  store: FhirService;
  /** How many exports the organization may run at once. */
  concurrentExports: number;
  /** The kick-off's path and query, for the audit. */
  path: string;
}

/** Starts an export; returns its job id. */
export async function startExport(ctx: KickoffContext, input: KickoffInput): Promise<string> {
  const { env, store, concurrentExports: limit } = ctx;
  const principal = store.principal;
  const request = parseKickoff(input);
  let patients: string[] | "all" | undefined;
  if (input.level === "group") {
    const members = await store.groupPatients(input.groupId!);
    patients = request.patients.length ? members.filter((m) => request.patients.includes(m)) : members;
  } else if (input.level === "patient") {
    patients = request.patients.length ? request.patients : "all";
  }
  const id = crypto.randomUUID();
  await acquireSlotOrThrow(env, principal.orgId, "exports", id, limit, EXPORT_SLOT_LEASE_MS);
  const now = new Date().toISOString();
  const state: ExportJobState = {
    id,
    orgId: principal.orgId,
    requestedBy: requesterRecordOf(principal),
    request,
    status: "running",
    transactionTime: now,
    createdAt: now,
    ...(patients ? { patients } : {}),
    typeIndex: 0,
    files: [],
    errorFiles: [],
    issues: (request.ignored ?? []).map((message) => ({ message, severity: "warning" as const })),
    exported: 0,
    attempts: 0,
  };
  try {
    await exportJob(env, principal.orgId, id).start(state, limit);
  } catch (err) {
    await releaseSlot(env, principal.orgId, "exports", id);
    throw err;
  }
  await recordExport(store.data.db, state);
  await store.recordAudit({ interaction: "operation", query: `$export ${ctx.path} → ${id}`, outcome: "0" });
  return id;
}
