// Sync logs on the org's shard: the state and per-data-type progress a DeviceSync writes after
// every page, so GET /v1/sync-logs/{id} shows a sync as it goes.
import { and, count, desc, eq, inArray } from "drizzle-orm";
import type { OrgData } from "../../../platform/org-data";
import { type DeviceSyncLogRow, deviceSyncLogs } from "../tables";

export type SyncState = "queued" | "running" | "completed" | "partially_failed" | "failed";

export interface TypeProgress {
  state: "pending" | "running" | "completed" | "failed";
  pages_fetched: number;
  readings_received: number;
  observations_created: number;
  observations_updated: number;
  duplicates_skipped: number;
  readings_rejected: number;
  /** Vendor records that were not readings, and rejected readings: reason per record (first 20 kept). */
  errors: { reason: string; record?: string }[];
  rate_limited: number;
}

export const MAX_ERRORS_KEPT = 20;

export const newProgress = (): TypeProgress => ({ state: "pending", pages_fetched: 0, readings_received: 0, observations_created: 0, observations_updated: 0, duplicates_skipped: 0, readings_rejected: 0, errors: [], rate_limited: 0 });

export async function insertSyncLog(data: OrgData, row: DeviceSyncLogRow): Promise<void> {
  await data.db.insert(deviceSyncLogs).values(row);
}

export async function findSyncLog(data: OrgData, id: string): Promise<DeviceSyncLogRow | undefined> {
  const [row] = await data.db.select().from(deviceSyncLogs).where(and(eq(deviceSyncLogs.orgId, data.orgId), eq(deviceSyncLogs.id, id)));
  return row;
}

export async function listSyncLogs(data: OrgData, deviceId: string, limit: number, offset: number): Promise<{ rows: DeviceSyncLogRow[]; total: number }> {
  const where = and(eq(deviceSyncLogs.orgId, data.orgId), eq(deviceSyncLogs.deviceId, deviceId));
  const [rows, totals] = await Promise.all([
    data.db.select().from(deviceSyncLogs).where(where).orderBy(desc(deviceSyncLogs.createdAt)).limit(limit).offset(offset),
    data.db.select({ n: count() }).from(deviceSyncLogs).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function updateSyncLog(data: OrgData, id: string, patch: Partial<Pick<DeviceSyncLogRow, "state" | "progress" | "startedAt" | "finishedAt">>): Promise<void> {
  await data.db.update(deviceSyncLogs).set(patch).where(and(eq(deviceSyncLogs.orgId, data.orgId), eq(deviceSyncLogs.id, id)));
}

/** Through when a finished sync fetched the device's data (its `to_date`): absence alerts count a gap only once a sync covered it. */
export async function lastSyncedThrough(data: OrgData, deviceId: string): Promise<string | undefined> {
  const [row] = await data.db
    .select({ toDate: deviceSyncLogs.toDate })
    .from(deviceSyncLogs)
    .where(and(eq(deviceSyncLogs.orgId, data.orgId), eq(deviceSyncLogs.deviceId, deviceId), inArray(deviceSyncLogs.state, ["completed", "partially_failed"])))
    .orderBy(desc(deviceSyncLogs.toDate))
    .limit(1);
  return row?.toDate;
}
