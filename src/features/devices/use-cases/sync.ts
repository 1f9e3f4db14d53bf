// Manual sync (spec 4.9): checks the request (data types the platform offers, a range it allows,
// days default 7), records a queued sync log and hands the work to a DeviceSync Durable Object;
// answers at once with the sync id. Reading logs: one, or a device's, newest first.
import type { OrgContext } from "../../../platform/org-context";
import type { OrgData } from "../../../platform/org-data";
import { badRequest, type FieldError, notFound } from "../../../platform/errors";
import { orgObject } from "../../../platform/durable-objects/object-names";
import type { Principal } from "../../tenancy";
import { resolutionsFor } from "../resolutions";
import { findIntegration, findIntegrationByPlatform } from "../store/integrations";
import { findSyncLog, insertSyncLog, listSyncLogs, newProgress } from "../store/sync-logs";
import { DAY_MS } from "../store/time-series";
import type { DeviceSyncLogRow } from "../tables";
import { activeLink } from "./links";

export const DEFAULT_SYNC_DAYS = 7;

export interface SyncRequest {
  data_types?: string[];
  days?: number;
  from_date?: string;
  to_date?: string;
  resolution?: Record<string, string>;
}

export interface SyncJob {
  orgId: string;
  syncId: string;
  deviceId: string;
  integrationId: string;
  principal: Principal;
  dataTypes: string[];
  from: string;
  to: string;
  /** The types synced at a roll-up resolution instead of raw samples (resolutions.ts). */
  resolutions?: Record<string, string>;
}

function range(body: SyncRequest, maxDays: number, now: number): { from: number; to: number } {
  const errors: FieldError[] = [];
  const parse = (field: "from_date" | "to_date") => {
    const value = body[field];
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) errors.push({ path: field, message: "must be an ISO 8601 date or date-time" });
    return ms;
  };
  let to = parse("to_date") ?? now;
  const fromDate = parse("from_date");
  if (errors.length) throw badRequest("Invalid sync range", errors);
  if (body.days !== undefined && fromDate !== undefined) throw badRequest("Invalid sync range", [{ path: "days", message: "give days or from_date, not both" }]);
  if (to > now) to = now;
  const from = fromDate ?? to - (body.days ?? DEFAULT_SYNC_DAYS) * DAY_MS;
  if (body.days !== undefined && (body.days < 1 || body.days > maxDays)) errors.push({ path: "days", message: `from 1 to ${maxDays} for this platform` });
  else if (to <= from) errors.push({ path: "to_date", message: "must be after from_date" });
  else if (to - from > maxDays * DAY_MS) errors.push({ path: "from_date", message: `the platform allows at most ${maxDays} days back` });
  if (errors.length) throw badRequest("Invalid sync range", errors);
  return { from, to };
}

export async function startSync(ctx: OrgContext, principal: Principal, deviceId: string, body: SyncRequest): Promise<DeviceSyncLogRow> {
  const link = await activeLink(ctx, deviceId);
  const adapter = ctx.devicePlatforms.of(link.platform);
  if (!adapter) throw badRequest(`Platform ${link.platform} has no sync adapter`, [{ path: "device_id", message: `${link.platform} devices push their readings; they cannot be synced` }]);
  const integration = link.integrationId ? await findIntegration(ctx, link.integrationId) : await findIntegrationByPlatform(ctx, link.platform);
  if (!integration) throw badRequest(`No ${link.platform} integration is set up`, [{ path: "device_id", message: "the organization has no integration for the device's platform" }]);
  const dataTypes = body.data_types?.length ? [...new Set(body.data_types)] : [...adapter.dataTypes];
  const unknown = dataTypes.flatMap((t, i) => (adapter.dataTypes.includes(t) ? [] : [{ path: `data_types[${i}]`, message: `unknown; allowed: ${adapter.dataTypes.join(", ")}` }]));
  if (unknown.length) throw badRequest("Unknown data types", unknown);
  const { from, to } = range(body, adapter.maxSyncDays, Date.now());
  const resolutions = resolutionsFor(adapter, dataTypes, body.resolution, integration.settings);

  const row: DeviceSyncLogRow = {
    orgId: ctx.orgId,
    id: crypto.randomUUID(),
    deviceId,
    state: "queued",
    fromDate: new Date(from).toISOString(),
    toDate: new Date(to).toISOString(),
    progress: Object.fromEntries(dataTypes.map((t) => [t, newProgress()])),
    requestedBy: principal.keyId,
    createdAt: new Date().toISOString(),
    startedAt: null,
    finishedAt: null,
  };
  await insertSyncLog(ctx, row);
  const job: SyncJob = { orgId: ctx.orgId, syncId: row.id, deviceId, integrationId: integration.id, principal, dataTypes, from: row.fromDate, to: row.toDate, ...(Object.keys(resolutions).length ? { resolutions } : {}) };
  await orgObject(ctx.env.DEVICE_SYNC, ctx.orgId, "device-sync", row.id).start(job);
  return row;
}

export async function getSyncLog(ctx: OrgData, syncId: string): Promise<DeviceSyncLogRow> {
  const row = await findSyncLog(ctx, syncId);
  if (!row) throw notFound(`Sync ${syncId} not found`, "SYNC_NOT_FOUND");
  return row;
}

export async function deviceSyncLogs(ctx: OrgData, deviceId: string, limit: number, offset: number) {
  const link = await activeLink(ctx, deviceId).catch(() => undefined);
  const logs = await listSyncLogs(ctx, deviceId, limit, offset);
  // An unlinked device keeps its history; an unknown one (or another org's) is 404.
  if (!link && logs.total === 0) throw notFound(`Device ${deviceId} not found`, "DEVICE_NOT_FOUND");
  return logs;
}
