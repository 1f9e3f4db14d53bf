// /api/v1 manual sync: start one (admin and clinician), read its log, list a device's logs.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { DeviceParam, presentSyncLog, SyncBody, SyncLog } from "../schemas";
import { deviceSyncLogs, getSyncLog, startSync } from "../use-cases/sync";
import { z } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited } from "../../audit";

const tags = ["Devices"];
const SyncParam = z.object({ syncId: z.string().min(1).max(64).openapi({ param: { name: "syncId", in: "path" } }) });
const Started = z.object({ sync_id: z.string(), state: z.string(), status_url: z.string() }).openapi("DeviceSyncStarted");

export const syncRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "post", path: "/devices/{deviceId}/sync", audit: audited("device.sync", { param: "deviceId" }), tags, summary: "Start a manual sync of a device (runs in the background)", security, middleware: requirePermission("devices:sync"), request: { params: DeviceParam, body: { required: false, content: json(SyncBody) } }, responses: { 202: { description: "Started", content: json(Started) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const row = await startSync(c.get("ctx"), c.get("principal"), c.req.valid("param").deviceId, c.req.valid("json") ?? {});
      return c.json({ sync_id: row.id, state: row.state, status_url: `/api/v1/sync-logs/${row.id}` }, 202);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/sync-logs/{syncId}", tags, summary: "A sync's state and per data type progress", security, middleware: requirePermission("fhir:read"), request: { params: SyncParam }, responses: { 200: { description: "Sync log", content: json(SyncLog) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentSyncLog(await getSyncLog(c.get("ctx"), c.req.valid("param").syncId)), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/devices/{deviceId}/sync-logs", tags, summary: "A device's sync logs, newest first", security, middleware: requirePermission("fhir:read"), request: { params: DeviceParam, query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("sync_logs", SyncLog)) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await deviceSyncLogs(c.get("ctx"), c.req.valid("param").deviceId, limit, offset);
      return c.json({ sync_logs: rows.map(presentSyncLog), total_count: total }, 200);
    },
  );
