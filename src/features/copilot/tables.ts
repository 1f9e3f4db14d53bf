// D1 table of the copilot's stored suggestions (on the org's shard): each is a change to one
// pipeline version, kept as an RFC 6902 JSON Patch of its definition. org_id leads every key.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export interface PatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}

export const copilotSuggestions = sqliteTable(
  "copilot_suggestions",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    pipelineId: text("pipeline_id").notNull(),
    /** The pipeline version the patch was computed against; apply refuses any other (409). */
    baseVersion: integer("base_version").notNull(),
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    rationale: text("rationale").notNull(),
    patch: text("patch", { mode: "json" }).$type<PatchOperation[]>().notNull(),
    status: text("status", { enum: ["open", "applied"] }).notNull(),
    appliedVersion: integer("applied_version"),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull(),
    appliedAt: text("applied_at"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("copilot_suggestions_org_pipeline_idx").on(t.orgId, t.pipelineId, t.createdAt)],
);

export type SuggestionRow = typeof copilotSuggestions.$inferSelect;
