// The pipelines API's zod schemas (validation and OpenAPI: pipelines, executions,
// step sessions, the node catalog, node files) and how stored rows are presented in responses.
import { z } from "@hono/zod-openapi";
import { PageQuery, jsonAtMost } from "../../platform/http/schemas";
import { DefinitionSchema, MAX_DEFINITION_BYTES } from "./definition";
import { CATEGORIES, type NodeType } from "./node-type";
import { categories, configJsonSchema } from "./registry";
import type { ExecutionRow, PipelineRow, PipelineVersionRow, StoredFileRow } from "./tables";

// Pipelines.

export const PipelineSummary = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string(),
    status: z.enum(["active", "deployed"]),
    version: z.number().int(),
    deployed_version: z.number().int().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("PipelineSummary");
export const Pipeline = PipelineSummary.extend({ definition: DefinitionSchema }).openapi("Pipeline");
export const PipelineVersion = z
  .object({ version: z.number().int(), name: z.string(), description: z.string(), created_at: z.string(), definition: DefinitionSchema })
  .openapi("PipelineVersion");

export const PipelineBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    definition: z
      .unknown()
      .superRefine(jsonAtMost(MAX_DEFINITION_BYTES))
      .openapi({ description: `nodes and connections; validated against the node catalog; at most ${MAX_DEFINITION_BYTES} bytes of JSON` }),
  })
  .strict()
  .openapi("PipelineInput");

export const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });
export const VersionParam = IdParam.extend({ version: z.coerce.number().int().min(1).openapi({ param: { name: "version", in: "path" } }) });

export const presentPipelineSummary = (r: PipelineRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  status: r.status,
  version: r.version,
  deployed_version: r.deployedVersion,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
export const presentPipeline = (r: PipelineRow) => ({ ...presentPipelineSummary(r), definition: r.definition as z.infer<typeof DefinitionSchema> });
export const presentPipelineVersion = (v: PipelineVersionRow) => ({
  version: v.version,
  name: v.name,
  description: v.description,
  created_at: v.createdAt,
  definition: v.definition as z.infer<typeof DefinitionSchema>,
});

export const WebhookQuery = z.object({ node_id: z.string().optional(), wait: z.enum(["true", "false"]).default("false") });

// Execution results, shared by the execute and webhook routes.

const NodeErrorSchema = z
  .object({ code: z.string(), message: z.string(), node_id: z.string(), node_type: z.string(), details: z.record(z.string(), z.unknown()).optional().openapi({ description: "e.g. {status, outcome}: the OperationOutcome a peer answered" }) })
  .openapi("NodeError");

export const NodeResultSchema = z
  .object({
    status: z.enum(["pending", "waiting", "completed", "failed", "skipped", "reused"]),
    duration_ms: z.number().int(),
    node_type: z.string(),
    attempts: z.number().int(),
    error: NodeErrorSchema.optional(),
    would_write: z.array(z.object({ target: z.string(), payload: z.unknown() })).optional().openapi({ description: "Test mode: what the node would have written" }),
  })
  .openapi("NodeResult");

export const ExecutionResponseSchema = z
  .object({
    execution_id: z.string(),
    status: z.enum(["running", "waiting", "completed", "failed"]),
    pipeline_id: z.string(),
    pipeline_version: z.number().int(),
    test_mode: z.boolean(),
    outputs: z.unknown().optional(),
    node_results: z.record(z.string(), NodeResultSchema).optional(),
    error: NodeErrorSchema.optional(),
    duration_ms: z.number().int().optional(),
    retry_of: z.string().optional(),
  })
  .openapi("ExecutionResult");

// Executions and step sessions.

export const ExecuteBody = z
  .object({
    pipeline_id: z.string().uuid(),
    inputs: z.record(z.string(), z.unknown()).default({}).openapi({ description: "Passed to the trigger (input) node" }),
    async: z.boolean().default(false),
    test_mode: z.boolean().default(false).openapi({ description: "true: nothing is written to external systems or the FHIR store; writes are reported instead" }),
  })
  .strict()
  .openapi("ExecuteRequest");

export const RetryBody = z
  .object({
    execution_id: z.string(),
    node_id: z.string(),
    inputs: z.record(z.string(), z.unknown()).optional().openapi({ description: "Input port values for node_id; default: the reused upstream outputs" }),
    async: z.boolean().default(false),
  })
  .strict()
  .openapi("RetryRequest");

export const StepBody = z
  .object({ pipeline_id: z.string().uuid(), inputs: z.record(z.string(), z.unknown()).default({}), test_mode: z.boolean().default(false) })
  .strict()
  .openapi("StepStartRequest");
export const StepAdvanceBody = z
  .object({ node_outputs: z.record(z.string(), z.unknown()).optional().openapi({ description: "Outputs to use for the current node instead of running it, by port" }) })
  .strict()
  .openapi("StepAdvanceRequest");

export const StepViewSchema = z
  .object({
    session_id: z.string(),
    status: z.enum(["waiting", "completed", "failed"]),
    current_node: z.string().nullable(),
    expires_at: z.string(),
    step: z.record(z.string(), z.unknown()).optional().openapi({ description: "The node just run: node_id, status, inputs, outputs, logs, error" }),
    outputs: z.unknown().optional(),
    node_results: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("StepSession");

export const ExecutionSummary = z
  .object({
    execution_id: z.string(),
    pipeline_id: z.string(),
    pipeline_version: z.number().int(),
    status: z.string(),
    trigger: z.string(),
    mode: z.enum(["sync", "async"]),
    test_mode: z.boolean(),
    retry_of: z.string().nullable(),
    retry_from_node: z.string().nullable(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    error: z.object({ code: z.string(), message: z.string(), node_id: z.string().nullable(), node_type: z.string().nullable() }).nullable(),
  })
  .openapi("ExecutionSummary");
export const ExecutionDetail = ExecutionSummary.extend({
  inputs: z.unknown(),
  outputs: z.unknown(),
  nodes: z.record(z.string(), z.unknown()).openapi({ description: "Per node: status, inputs, outputs, logs, error, timing, attempts" }),
}).openapi("Execution");

export const presentExecutionSummary = (r: ExecutionRow): z.infer<typeof ExecutionSummary> => ({
  execution_id: r.id,
  pipeline_id: r.pipelineId,
  pipeline_version: r.pipelineVersion,
  status: r.status,
  trigger: r.trigger,
  mode: r.mode,
  test_mode: r.testMode,
  retry_of: r.retryOf,
  retry_from_node: r.retryFromNode,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
  duration_ms: r.durationMs,
  error: r.errorCode ? { code: r.errorCode, message: r.errorMessage ?? "", node_id: r.errorNodeId, node_type: r.errorNodeType } : null,
});

export const SessionParam = z.object({ sessionId: z.string().openapi({ param: { name: "sessionId", in: "path" } }) });

export const ExecutionIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export const ExecutionListQuery = PageQuery.extend({
  pipeline_id: z.string().optional(),
  status: z.string().optional(),
  since: z.string().datetime().optional().openapi({ description: "Started at or after (ISO 8601, UTC)" }),
  until: z.string().datetime().optional().openapi({ description: "Started at or before (ISO 8601, UTC)" }),
});

export const StatsQuery = z.object({
  pipeline_id: z.string().optional(),
  since: z.string().datetime().optional(),
  until: z.string().datetime().optional(),
  include_test: z.enum(["true", "false"]).default("false"),
});

export const StatsSchema = z.object({
  total_executions: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  running: z.number().int(),
  success_rate: z.number().nullable(),
  average_duration_ms: z.number().int().nullable(),
  error_distribution: z.record(z.string(), z.object({ count: z.number().int(), codes: z.record(z.string(), z.number().int()) })),
});

// The node catalog.

const Port = z.object({ name: z.string(), type: z.string(), description: z.string().optional(), multiple: z.boolean().optional() });
export const CatalogEntry = z
  .object({
    id: z.string(),
    name: z.string(),
    category: z.enum(CATEGORIES),
    description: z.string(),
    keywords: z.array(z.string()),
    trigger: z.string().nullable(),
    inputs: z.array(Port),
    outputs: z.array(Port),
    config_schema: z.record(z.string(), z.unknown()),
  })
  .openapi("NodeCatalogEntry");
export const CatalogDetail = CatalogEntry.extend({
  documentation: z.object({ summary: z.string(), example: z.record(z.string(), z.unknown()) }),
  error_port: z.string(),
}).openapi("NodeCatalogDetail");

export const presentNodeType = (n: NodeType<unknown>) => ({
  id: n.id,
  name: n.name,
  category: n.category,
  description: n.description,
  keywords: n.keywords,
  trigger: n.trigger?.kind ?? null,
  inputs: n.inputs,
  outputs: n.outputs,
  config_schema: configJsonSchema(n) as Record<string, unknown>,
});
export const CatalogQuery = z.object({ category: z.enum(CATEGORIES).optional() });
export const NodeTypeSearchParam = z.object({ query: z.string().min(1).openapi({ param: { name: "query", in: "path" } }) });
export const NodeTypeIdParam = z.object({ nodeId: z.string().openapi({ param: { name: "nodeId", in: "path" } }) });

export const presentNodeTypes = (nodes: NodeType<unknown>[]) => ({ nodes: nodes.map(presentNodeType), categories: [...categories], total_count: nodes.length });
export const NodeTypeListSchema = z.object({ nodes: z.array(CatalogEntry), categories: z.array(z.string()), total_count: z.number().int() });

export const presentNodeTypeDetail = (n: NodeType<unknown>): z.infer<typeof CatalogDetail> => ({
  ...presentNodeType(n),
  documentation: n.documentation,
  error_port: "error (json), emitted when the node's on_error is route",
});

// Files nodes keep in R2 (/api/v1/files).
export const FileSummary = z
  .object({
    id: z.string().openapi({ description: "The API's id of the file" }),
    key: z.string().openapi({ description: "The key nodes use (e.g. DICOM store's input)", example: "dicom/ex1/retrieve/1.2.3/1.dcm" }),
    bytes: z.number().int(),
    content_type: z.string(),
    pipeline_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    node_id: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("StoredFile");

export const FileListQuery = PageQuery.extend({
  pipeline_id: z.string().max(100).optional().openapi({ description: "Only files stored by this pipeline's executions" }),
  execution_id: z.string().max(100).optional().openapi({ description: "Only files stored by this execution" }),
});

export const FileUploadBody = z
  .object({
    key: z.string().min(1).max(512).openapi({ description: "Where nodes find it (relative path of letters, digits, . _ - /)", example: "claims/2026-01/batch1.837" }),
    content_type: z.string().min(1).max(200).regex(/^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/, "a media type").default("application/octet-stream"),
    text: z.string().optional().openapi({ description: "The content as text (stored as UTF-8): X12, HL7, JSON..." }),
    base64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64").optional().openapi({ description: "The content as base64 (binary files)" }),
  })
  .strict()
  .refine((b) => (b.text === undefined) !== (b.base64 === undefined), { message: "Give the content as exactly one of text or base64" })
  .openapi("FileUpload");

export const FileIdParam = z.object({ id: z.string().uuid().openapi({ param: { name: "id", in: "path" } }) });

export const presentFile = (r: StoredFileRow): z.infer<typeof FileSummary> => ({
  id: r.id,
  key: r.key,
  bytes: r.bytes,
  content_type: r.contentType,
  pipeline_id: r.pipelineId,
  execution_id: r.executionId,
  node_id: r.nodeId,
  created_at: r.createdAt,
});
