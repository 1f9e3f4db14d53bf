// The organization's exports as a list: a D1 row per kick-off (tables.ts) joined with each job's
// live state from its Durable Object. A job whose object has purged itself (expired, or cancelled
// a while ago) is listed as "expired": its files are gone.
import { count, desc, eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import type { Env } from "../../platform/env";
import { type ExportJobState, percentDone } from "./job";
import { exportJob } from "./jobs";
import { type BulkExportRow, bulkExports } from "./tables";

export async function recordExport(db: Database, state: ExportJobState): Promise<void> {
  const r = state.request;
  await db.insert(bulkExports).values({
    orgId: state.orgId,
    id: state.id,
    level: r.level,
    groupId: r.groupId ?? null,
    types: JSON.stringify(r.types),
    since: r.since ?? null,
    requestedByKeyId: state.requestedBy.keyId,
    requestedByName: state.requestedBy.keyName,
    createdAt: state.createdAt,
  });
}

export type ListedStatus = ExportJobState["status"] | "expired";

export interface ListedExport {
  row: BulkExportRow;
  status: ListedStatus;
  progress: number;
  exported: number;
  completedAt?: string;
  expiresAt?: string;
  failure?: string;
}

/** One page of the organization's exports, newest first, each with its job's current state. */
export async function listExports(env: Env, db: Database, orgId: string, page: { limit: number; offset: number }): Promise<{ exports: ListedExport[]; total: number }> {
  const where = eq(bulkExports.orgId, orgId);
  const [rows, [totals]] = await Promise.all([
    db.select().from(bulkExports).where(where).orderBy(desc(bulkExports.createdAt), desc(bulkExports.id)).limit(page.limit).offset(page.offset),
    db.select({ n: count() }).from(bulkExports).where(where),
  ]);
  const exports = await Promise.all(
    rows.map(async (row): Promise<ListedExport> => {
      const state = await exportJob(env, orgId, row.id).snapshot(orgId);
      if (!state || state.orgId !== orgId) return { row, status: "expired", progress: 0, exported: 0 };
      return {
        row,
        status: state.status,
        progress: state.status === "completed" ? 100 : percentDone(state),
        exported: state.exported,
        ...(state.completedAt ? { completedAt: state.completedAt } : {}),
        ...(state.expiresAt ? { expiresAt: state.expiresAt } : {}),
        ...(state.failure ? { failure: state.failure } : {}),
      };
    }),
  );
  return { exports, total: totals?.n ?? 0 };
}
