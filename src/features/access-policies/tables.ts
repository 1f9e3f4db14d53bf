// Access policies (issue #34): named sets of rules narrowing what a credential may read and write
// in the FHIR store (docs/fhir-store.md, "Access policies"). In the control database beside the
// API keys, users and client applications that are assigned one (their `access_policy_id`), so an
// assignment and the policy it names are checked in one database, before any shard is known.
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { PolicyRule } from "./rules";

export const accessPolicies = sqliteTable(
  "access_policies",
  {
    id: text("id").primaryKey(),
    /** No foreign key in the schema: the organizations table is tenancy's, reached only through its index (the floors test). */
    orgId: text("org_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    /** The rules (rules.ts, PolicyRule[]), validated at save (validate.ts). */
    resources: text("resources", { mode: "json" }).$type<PolicyRule[]>().notNull(),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
    updatedAt: text("updated_at").notNull(),
    updatedBy: text("updated_by"),
  },
  (t) => [index("access_policies_org_created_idx").on(t.orgId, t.createdAt)],
);

export type AccessPolicyRow = typeof accessPolicies.$inferSelect;
