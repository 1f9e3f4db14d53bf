// Bulk Data export (HL7 Bulk Data Access IG): kick-off at system, Patient and
// Group level, status polling, cancellation and file download, under the
// organization's FHIR base. The work itself runs in the ExportJob Durable Object.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EXPORT_SLOT_LEASE_MS } from "../export-job";
import { ApiError, badRequest, notAcceptable, notFound } from "../../../platform/errors";
import { exportSourceFor } from "../fhir-source";
import { fhirStoreFor } from "../../fhir";
import { type ExportJobState, percentDone } from "../job";
import { type ExportLevel, parseKickoff } from "../kickoff";
import { negotiateEncoding } from "../../../platform/http/accept-encoding";
import type { AppEnv } from "../../../app-env";
import { fhirBaseUrl, requestPath, requestUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import { security } from "../../../platform/http/schemas";
import { acquireSlotOrThrow, releaseSlot } from "../../tenancy/limits/gate";
import { requirePermission } from "../../tenancy/middleware/auth";
import { orgObject } from "../../../platform/durable-objects/object-names";

const tags = ["FHIR Bulk Data"];
const canExport = requirePermission("export:run");
const outcome = (description: string) => ({ description, content: { "application/fhir+json": { schema: z.object({ resourceType: z.literal("OperationOutcome") }).passthrough() } } });
const kickoffResponses = {
  202: { description: "Export started; poll the URL in Content-Location" },
  400: outcome("Invalid or unsupported export parameters"),
  429: outcome("Too many concurrent exports for this organization"),
};
const kickoffHeaders = z.object({
  accept: z.string().optional().openapi({ example: "application/fhir+json" }),
  prefer: z.string().optional().openapi({ example: "respond-async" }),
});
// List-valued parameters may repeat (`_type=A&_type=B` is `_type=A,B`).
const repeatable = (description: string) => z.union([z.string(), z.array(z.string())]).optional().openapi({ description });
const kickoffQuery = z.object({
  _type: repeatable("Comma-separated resource types; may repeat"),
  _since: z.string().optional().openapi({ description: "RFC 3339 instant; only resources updated after it" }),
  _typeFilter: repeatable("Comma-separated Type?query FHIR searches; may repeat"),
  _outputFormat: z.string().optional().openapi({ description: "application/fhir+ndjson (default), application/ndjson or ndjson" }),
  _elements: repeatable("Comma-separated element names (optionally Type.element); may repeat"),
  includeAssociatedData: repeatable(
    "LatestProvenanceResources (each exported resource's most recently recorded Provenance) or RelevantProvenanceResources (all Provenance targeting exported resources); may repeat",
  ),
});
const parametersBody = {
  required: false,
  content: { "application/fhir+json": { schema: z.object({ resourceType: z.literal("Parameters") }).passthrough() } },
};
const JobParams = z.object({ jobId: z.string().min(1).max(64) });

function jobStub(c: Context<AppEnv>, jobId: string) {
  return orgObject(c.env.EXPORT_JOB, c.get("principal").orgId, jobId);
}

/** Kick-offs and downloads are audited like any FHIR interaction (an operation AuditEvent). */
async function audit(c: Context<AppEnv>, query: string, outcome: "0" | "4" = "0"): Promise<void> {
  const store = fhirStoreFor(c.env, c.get("principal"), { waitUntil: (p) => c.executionCtx.waitUntil(p) });
  await store.recordAudit({ interaction: "operation", query, outcome });
}

/** The job of this organization, or 404: another org's id looks exactly like an unknown one. */
async function visibleJob(c: Context<AppEnv>, jobId: string): Promise<ExportJobState> {
  const state = await jobStub(c, jobId).snapshot(c.get("principal").orgId);
  if (!state || state.orgId !== c.get("principal").orgId || state.status === "cancelled") {
    throw notFound(`No export ${jobId}`, "EXPORT_NOT_FOUND");
  }
  return state;
}

async function readParameters(c: Context<AppEnv>): Promise<unknown> {
  if (c.req.method !== "POST") return undefined;
  const text = await c.req.text();
  if (!text.trim()) return { resourceType: "Parameters" };
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("The kick-off body is not valid JSON");
  }
}

async function kickoff(c: Context<AppEnv>, level: ExportLevel, groupId?: string): Promise<Response> {
  const principal = c.get("principal");
  const request = parseKickoff({
    level,
    ...(groupId ? { groupId } : {}),
    method: c.req.method,
    url: requestUrl(c),
    accept: c.req.header("accept"),
    prefer: c.req.header("prefer"),
    body: await readParameters(c),
  });
  let patients: string[] | "all" | undefined;
  if (level === "group") {
    const members = await exportSourceFor(c.env, principal.orgId).groupPatients(groupId!);
    patients = request.patients.length ? members.filter((m) => request.patients.includes(m)) : members;
  } else if (level === "patient") {
    patients = request.patients.length ? request.patients : "all";
  }
  const id = crypto.randomUUID();
  const limit = c.get("limits").concurrentExports;
  await acquireSlotOrThrow(c.env, principal.orgId, "exports", id, limit, EXPORT_SLOT_LEASE_MS);
  const now = new Date().toISOString();
  const state: ExportJobState = {
    id,
    orgId: principal.orgId,
    requestedBy: { keyId: principal.keyId, keyName: principal.keyName, role: principal.role },
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
    await jobStub(c, id).start(state, limit);
  } catch (err) {
    await releaseSlot(c.env, principal.orgId, "exports", id);
    throw err;
  }
  await audit(c, `$export ${requestPath(c)} → ${id}`);
  c.header("Content-Location", `${fhirBaseUrl(c)}/bulkdata/status/${id}`);
  return c.body(null, 202);
}

function manifest(c: Context<AppEnv>, state: ExportJobState) {
  const url = (name: string) => `${fhirBaseUrl(c)}/bulkdata/download/${state.id}/${name}`;
  return {
    transactionTime: state.transactionTime,
    request: state.request.requestUrl,
    requiresAccessToken: true,
    output: state.files.map((f) => ({ type: f.type, url: url(f.name), count: f.count })),
    error: state.errorFiles.map((f) => ({ type: f.type, url: url(f.name), count: f.count })),
  };
}

const kickoffRoute = (method: "get" | "post", path: string, summary: string, params?: z.ZodObject) =>
  createRoute({
    method,
    path,
    tags,
    summary,
    security,
    middleware: canExport,
    request: {
      headers: kickoffHeaders,
      ...(method === "get" ? { query: kickoffQuery } : { body: parametersBody }),
      ...(params ? { params } : {}),
    },
    responses: kickoffResponses,
  });

const GroupParams = z.object({ groupId: z.string().min(1).max(64) });

export const bulkExportRoutes = createRouter();
for (const method of ["get", "post"] as const) {
  bulkExportRoutes.openapi(kickoffRoute(method, "/$export", "Kick off a system-level export of the organization's data"), (c) =>
    kickoff(c, "system"),
  );
  bulkExportRoutes.openapi(kickoffRoute(method, "/Patient/$export", "Kick off a Patient-level export (Patient compartment)"), (c) =>
    kickoff(c, "patient"),
  );
  bulkExportRoutes.openapi(
    kickoffRoute(method, "/Group/{groupId}/$export", "Kick off an export of a Group's members' compartments", GroupParams),
    (c) => kickoff(c, "group", c.req.param("groupId")),
  );
}

bulkExportRoutes
  .openapi(
    createRoute({
      method: "get",
      path: "/bulkdata/status/{jobId}",
      tags,
      summary: "Export status: 202 while running (X-Progress), 200 with the manifest when complete",
      security,
      middleware: canExport,
      request: { params: JobParams },
      responses: {
        200: { description: "Manifest", content: { "application/json": { schema: z.object({ transactionTime: z.string() }).passthrough() } } },
        202: { description: "In progress" },
        404: outcome("Unknown, expired or cancelled export"),
        500: outcome("The export failed"),
      },
    }),
    async (c) => {
      const state = await visibleJob(c, c.req.valid("param").jobId);
      if (state.status === "failed") {
        throw new ApiError(500, "EXPORT_FAILED", `The export failed: ${state.failure ?? "unknown error"}`);
      }
      if (state.status === "running") {
        c.header("X-Progress", `${percentDone(state)}% (${state.exported} resources written)`);
        c.header("Retry-After", "2");
        return c.body(null, 202);
      }
      if (state.expiresAt) c.header("Expires", new Date(state.expiresAt).toUTCString());
      return c.json(manifest(c, state), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/bulkdata/status/{jobId}",
      tags,
      summary: "Cancel an export (or delete a completed one's files)",
      security,
      middleware: canExport,
      request: { params: JobParams },
      responses: { 202: { description: "Cancelled" }, 404: outcome("Unknown export") },
    }),
    async (c) => {
      const { jobId } = c.req.valid("param");
      await visibleJob(c, jobId);
      if (!(await jobStub(c, jobId).cancel(c.get("principal").orgId))) throw notFound(`No export ${jobId}`, "EXPORT_NOT_FOUND");
      return c.body(null, 202);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/bulkdata/download/{jobId}/{file}",
      tags,
      summary: "Download one NDJSON file of a completed export (gzip when accepted)",
      security,
      middleware: canExport,
      request: { params: JobParams.extend({ file: z.string().regex(/^[A-Za-z]+-\d+\.ndjson$/) }) },
      responses: {
        200: { description: "NDJSON, one resource per line", content: { "application/fhir+ndjson": { schema: z.string() } } },
        404: { description: "Unknown file (OperationOutcome)" },
        406: outcome("Accept-Encoding excludes both gzip and identity"),
      },
    }),
    async (c) => {
      const { jobId, file } = c.req.valid("param");
      // Files are stored gzip-compressed: sent as they are when the client accepts gzip, else
      // decompressed on the fly (streaming, so memory stays flat).
      const coding = negotiateEncoding(c.req.header("accept-encoding"), ["gzip", "identity"]);
      if (!coding) throw notAcceptable("Export files are served gzip-compressed or uncompressed; Accept-Encoding excludes both");
      const state = await visibleJob(c, jobId);
      const entry = [...state.files, ...state.errorFiles].find((f) => f.name === file);
      const object = entry && state.status === "completed" ? await c.env.BLOBS.get(entry.key) : null;
      if (!object) throw notFound(`No file ${file} in export ${jobId}`, "EXPORT_FILE_NOT_FOUND");
      await audit(c, `$export download ${jobId}/${file}`);
      const headers = new Headers({ "Content-Type": "application/fhir+ndjson", Vary: "Accept-Encoding" });
      for (const [k, v] of c.res.headers) if (k.startsWith("x-")) headers.set(k, v);
      if (coding === "gzip") {
        headers.set("Content-Encoding", "gzip");
        return new Response(object.body, { headers, encodeBody: "manual" });
      }
      return new Response(object.body.pipeThrough(new DecompressionStream("gzip")), { headers });
    },
  );
