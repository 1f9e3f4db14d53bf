// D1 table of each organization's IHE conformance settings on its FHIR endpoint. One row per org
// on its shard; absent = the defaults (plain FHIR behaviour where IHE leaves it to the server).
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const iheSettings = sqliteTable(
  "ihe_settings",
  {
    orgId: text("org_id").notNull(),
    /** 1: every DocumentReference and List search on the org's FHIR base is an MHD ITI-67/66 query (400 without patient or status). */
    mhdStrict: integer("mhd_strict", { mode: "boolean" }).notNull().default(false),
    /** 1: ITI-68 answers 410 Gone for a document whose DocumentReferences are all superseded (none current). */
    supersededGone: integer("mhd_superseded_gone", { mode: "boolean" }).notNull().default(false),
    updatedAt: text("updated_at").notNull(),
    updatedBy: text("updated_by").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId] })],
);
