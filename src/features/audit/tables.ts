// D1 table of each organization's audit retention: how long AuditEvents must be kept before the
// admin CLI may purge them. No row, or a null retention, keeps them forever.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const auditSettings = sqliteTable(
  "audit_settings",
  {
    orgId: text("org_id").notNull(),
    retentionDays: integer("retention_days"),
    updatedAt: text("updated_at").notNull(),
    updatedBy: text("updated_by").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId] })],
);
