// D1 table of custom tools agents can call, one unique name per organization.
import { primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const tools = sqliteTable(
  "tools",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    parameters: text("parameters", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    implementation: text("implementation", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), uniqueIndex("tools_org_name_uq").on(t.orgId, t.name)],
);

export type ToolRow = typeof tools.$inferSelect;
