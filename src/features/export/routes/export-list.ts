// GET /api/v1/bulk-exports: the organization's Bulk Data exports, newest first, each with its
// live status and progress and the status URL to poll (the IG's own status/manifest/download
// routes stay in bulk-export.ts). For the console's exports page; any client may use it.
import { createRoute, z } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { publicBaseUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, PageQuery, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { type ListedExport, listExports } from "../export-index";

const BulkExport = z
  .object({
    id: z.string(),
    level: z.enum(["system", "patient", "group"]),
    group_id: z.string().nullable(),
    types: z.array(z.string()),
    since: z.string().nullable(),
    requested_by: z.object({ key_id: z.string(), name: z.string() }),
    created_at: z.string(),
    status: z.enum(["running", "completed", "failed", "cancelled", "expired"]).openapi({ description: "expired: the job and its files are gone (past EXPORT_TTL_HOURS, or cancelled a while ago)" }),
    progress: z.number().int().min(0).max(100).openapi({ description: "Percent of the export's resource types written (the status route's X-Progress)" }),
    exported: z.number().int().openapi({ description: "Resources written so far" }),
    completed_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    failure: z.string().nullable(),
    status_url: z.string().openapi({ description: "The Bulk Data status URL: 202 while running, 200 with the manifest, DELETE to cancel" }),
  })
  .openapi("BulkExport");

const present = (e: ListedExport, statusBase: string) => ({
  id: e.row.id,
  level: e.row.level as "system" | "patient" | "group",
  group_id: e.row.groupId,
  types: JSON.parse(e.row.types) as string[],
  since: e.row.since,
  requested_by: { key_id: e.row.requestedByKeyId, name: e.row.requestedByName },
  created_at: e.row.createdAt,
  status: e.status,
  progress: e.progress,
  exported: e.exported,
  completed_at: e.completedAt ?? null,
  expires_at: e.expiresAt ?? null,
  failure: e.failure ?? null,
  status_url: `${statusBase}/${e.row.id}`,
});

export const bulkExportListRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "listBulkExports",
    tags: ["FHIR Bulk Data"],
    summary: "List the organization's Bulk Data exports, newest first, with status and progress",
    security,
    middleware: requirePermission("export:run"),
    request: { query: PageQuery },
    responses: { 200: { description: "Page", content: json(pageOf("bulk_exports", BulkExport)) }, ...commonErrors },
  }),
  async (c) => {
    const ctx = c.get("ctx");
    const { exports, total } = await listExports(c.env, ctx.db, ctx.orgId, c.req.valid("query"));
    const statusBase = `${publicBaseUrl(c.env, c.req.url)}/fhir/r4/${ctx.orgId}/bulkdata/status`;
    return c.json({ bulk_exports: exports.map((e) => present(e, statusBase)), total_count: total }, 200);
  },
);
