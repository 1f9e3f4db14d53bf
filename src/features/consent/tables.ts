// D1 table of each organization's consent policy: the default when no Consent applies and
// whether outbound nodes check consent. One row per org on its shard; absent = opt-out, not enforced.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const consentPolicies = sqliteTable(
  "consent_policies",
  {
    orgId: text("org_id").notNull(),
    /** "opt-in" (no consent: deny) or "opt-out" (no consent: permit). */
    defaultPolicy: text("default_policy").notNull(),
    /** 1: every outbound node checks consent before sending; 0: only nodes configured to. */
    enforceOutbound: integer("enforce_outbound", { mode: "boolean" }).notNull(),
    /** 1: the FHIR API's reads, searches and exports are filtered by patients' Consents (read-policy.ts). */
    enforceReads: integer("enforce_reads", { mode: "boolean" }).notNull().default(false),
    updatedAt: text("updated_at").notNull(),
    updatedBy: text("updated_by").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId] })],
);

export type ConsentPolicyRow = typeof consentPolicies.$inferSelect;
