// D1 index of an organization's Bulk Data exports, so they can be listed: one row per kick-off
// on the org's shard. The job's live state (status, progress, files) stays in its ExportJob
// Durable Object; the list reads it from there.
import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const bulkExports = sqliteTable(
  "bulk_exports",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    /** system, patient or group. */
    level: text("level").notNull(),
    groupId: text("group_id"),
    /** JSON array of the exported resource types. */
    types: text("types").notNull(),
    since: text("since"),
    requestedByKeyId: text("requested_by_key_id").notNull(),
    requestedByName: text("requested_by_name").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("bulk_exports_org_created").on(t.orgId, t.createdAt)],
);

export type BulkExportRow = typeof bulkExports.$inferSelect;
