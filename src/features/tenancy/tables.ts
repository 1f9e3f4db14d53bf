// Drizzle schema of the service's D1 tables. `npm run db:generate` turns changes
// into SQL under migrations/. Every tenant-owned table leads its keys with org_id.
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** JSON object of per-organization limit overrides (see src/limits/config.ts). */
  limits: text("limits", { mode: "json" }).$type<Record<string, number>>().notNull().default({}),
  createdAt: text("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    role: text("role", { enum: ["admin", "clinician", "service"] }).notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull().default([]),
    keyHash: text("key_hash").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_keys_hash_uq").on(t.keyHash),
    index("api_keys_org_created_idx").on(t.orgId, t.createdAt),
  ],
);

export type OrganizationRow = typeof organizations.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
