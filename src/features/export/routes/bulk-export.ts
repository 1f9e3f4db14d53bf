// Bulk Data export after kick-off (HL7 Bulk Data Access IG): status polling, cancellation
// and file download, under the organization's FHIR base. The kick-off is the $export FHIR
// operation (operations.ts); the work itself runs in the ExportJob Durable Object (jobs.ts).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HttpEnv } from "../../../platform/http/http-env";
import { ApiError, notAcceptable } from "../../../platform/errors";
import { clientAcceptEncoding, negotiateEncoding } from "../../../platform/http/accept-encoding";
import { fhirBaseUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import { security } from "../../../platform/http/schemas";
import { permitAll } from "../../fhir";
import { requirePermission } from "../../tenancy";
import { type ExportJobState, percentDone } from "../job";
import { cancelExport, downloadExportFile, visibleExport } from "../jobs";
import { audited } from "../../audit";

const tags = ["FHIR Bulk Data"];
const canExport = requirePermission("export:run");
const byJob = { param: "jobId" } as const;
const outcome = (description: string) => ({ description, content: { "application/fhir+json": { schema: z.object({ resourceType: z.literal("OperationOutcome") }).passthrough() } } });
// orgId is the mount point's (/fhir/r4/:orgId), declared so the document names every path parameter.
const JobParams = z.object({ orgId: z.string(), jobId: z.string().min(1).max(64) });

function manifest(c: Context<HttpEnv>, state: ExportJobState) {
  const url = (name: string) => `${fhirBaseUrl(c)}/bulkdata/download/${state.id}/${name}`;
  return {
    transactionTime: state.transactionTime,
    request: state.request.requestUrl,
    requiresAccessToken: true,
    output: state.files.map((f) => ({ type: f.type, url: url(f.name), count: f.count })),
    error: state.errorFiles.map((f) => ({ type: f.type, url: url(f.name), count: f.count })),
  };
}

export const bulkExportRoutes = createRouter<HttpEnv>();
bulkExportRoutes
  .openapi(
    createRoute({
      method: "get",
      path: "/bulkdata/status/{jobId}",
      operationId: "bulkExportStatus",
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
      const state = await visibleExport(c.env, c.get("principal"), c.req.valid("param").jobId);
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
      audit: audited("export.cancel", byJob),
      operationId: "cancelBulkExport",
      tags,
      summary: "Cancel an export (or delete a completed one's files)",
      security,
      middleware: canExport,
      request: { params: JobParams },
      responses: { 202: { description: "Cancelled" }, 404: outcome("Unknown export") },
    }),
    async (c) => {
      await cancelExport(c.env, c.get("principal"), c.req.valid("param").jobId);
      return c.body(null, 202);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/bulkdata/download/{jobId}/{file}",
      audit: audited("export.download", byJob),
      operationId: "downloadBulkExportFile",
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
      const coding = negotiateEncoding(clientAcceptEncoding(c.req.raw), ["gzip", "identity"]);
      if (!coding) throw notAcceptable("Export files are served gzip-compressed or uncompressed; Accept-Encoding excludes both");
      // The download reads no resource (its file is written): the store only audits it, without the consent policy.
      const store = c.get("ctx").fhir(c.get("principal"), { policy: permitAll, waitUntil: (p) => c.executionCtx.waitUntil(p) });
      const object = await downloadExportFile(c.env, store, jobId, file);
      const headers = new Headers({ "Content-Type": "application/fhir+ndjson", Vary: "Accept-Encoding" });
      for (const [k, v] of c.res.headers) if (k.startsWith("x-")) headers.set(k, v);
      if (coding === "gzip") {
        headers.set("Content-Encoding", "gzip");
        return new Response(object.body, { headers, encodeBody: "manual" });
      }
      return new Response(object.body.pipeThrough(new DecompressionStream("gzip")), { headers });
    },
  );
