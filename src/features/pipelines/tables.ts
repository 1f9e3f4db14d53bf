// D1 tables of pipelines, their versions and executions, and trigger indexes.
// org_id leads every key and index.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const pipelines = sqliteTable(
  "pipelines",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: ["active", "deployed"] }).notNull(),
    version: integer("version").notNull(),
    /** The version triggers and non-test executions run while deployed. */
    deployedVersion: integer("deployed_version"),
    definition: text("definition", { mode: "json" }).$type<unknown>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("pipelines_org_created_idx").on(t.orgId, t.createdAt)],
);

export const pipelineVersions = sqliteTable(
  "pipeline_versions",
  {
    orgId: text("org_id").notNull(),
    pipelineId: text("pipeline_id").notNull(),
    version: integer("version").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    definition: text("definition", { mode: "json" }).$type<unknown>().notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.pipelineId, t.version] })],
);

/** One row per trigger node of a deployed pipeline, so cron and events find them without reading definitions. */
export const pipelineTriggers = sqliteTable(
  "pipeline_triggers",
  {
    orgId: text("org_id").notNull(),
    pipelineId: text("pipeline_id").notNull(),
    nodeId: text("node_id").notNull(),
    kind: text("kind", { enum: ["schedule", "event", "webhook"] }).notNull(),
    /** Cron expression (schedule) or event type (event). */
    match: text("match").notNull().default(""),
    attributes: text("attributes", { mode: "json" }).$type<Record<string, string>>().notNull().default({}),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.pipelineId, t.nodeId] }),
    index("pipeline_triggers_kind_idx").on(t.kind, t.orgId, t.match),
  ],
);

export const executions = sqliteTable(
  "executions",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    pipelineId: text("pipeline_id").notNull(),
    pipelineVersion: integer("pipeline_version").notNull(),
    status: text("status").notNull(),
    trigger: text("trigger").notNull(),
    testMode: integer("test_mode", { mode: "boolean" }).notNull(),
    mode: text("mode", { enum: ["sync", "async"] }).notNull(),
    retryOf: text("retry_of"),
    retryFromNode: text("retry_from_node"),
    idempotencyKey: text("idempotency_key"),
    startedAt: text("started_at").notNull(),
    finishedAt: text("finished_at"),
    durationMs: integer("duration_ms"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    errorNodeId: text("error_node_id"),
    errorNodeType: text("error_node_type"),
    /** The full record (inputs, outputs, node states) as JSON, or null when it lives in R2 under recordKey. */
    record: text("record"),
    recordKey: text("record_key"),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index("executions_org_started_idx").on(t.orgId, t.startedAt),
    index("executions_org_pipeline_idx").on(t.orgId, t.pipelineId, t.startedAt),
    uniqueIndex("executions_org_idem_uq").on(t.orgId, t.pipelineId, t.idempotencyKey),
  ],
);

export type PipelineRow = typeof pipelines.$inferSelect;
export type PipelineVersionRow = typeof pipelineVersions.$inferSelect;
export type ExecutionRow = typeof executions.$inferSelect;
export type PipelineTriggerRow = typeof pipelineTriggers.$inferSelect;

/**
 * The files pipeline nodes stored in R2 (orgs/<org>/files/<key>: retrieved DICOM instances
 * and images, X12 payloads), one row each, so the files API can list and page them by
 * execution or pipeline without listing the bucket.
 */
export const storedFiles = sqliteTable(
  "node_files",
  {
    orgId: text("org_id").notNull(),
    key: text("key").notNull(),
    /** The API's name for the file (keys hold slashes, which a path segment cannot). */
    id: text("id").notNull(),
    bytes: integer("bytes").notNull(),
    contentType: text("content_type").notNull(),
    pipelineId: text("pipeline_id"),
    executionId: text("execution_id"),
    nodeId: text("node_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.key] }),
    uniqueIndex("node_files_org_id_idx").on(t.orgId, t.id),
    index("node_files_org_created_idx").on(t.orgId, t.createdAt),
    index("node_files_org_execution_idx").on(t.orgId, t.executionId),
    index("node_files_org_pipeline_idx").on(t.orgId, t.pipelineId, t.createdAt),
  ],
);

export type StoredFileRow = typeof storedFiles.$inferSelect;
