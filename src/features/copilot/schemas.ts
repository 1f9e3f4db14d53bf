// The copilot API's zod schemas (validation and OpenAPI) and the suggestion presenter.
// Payloads the spec leaves open are chosen here and described in docs/copilot.md.
import { z } from "@hono/zod-openapi";
import { DefinitionSchema, MAX_DEFINITION_BYTES } from "../pipelines";
import { PageQuery, jsonAtMost } from "../../platform/http/schemas";
import { CreateAgentBody } from "../agents";
import { CODE_NODE_TYPES } from "./generation/code";
import { MappingRuleSchema } from "./generation/hl7-mapping";
import type { SuggestionRow } from "./tables";

const Definition = z
  .unknown()
  .superRefine(jsonAtMost(MAX_DEFINITION_BYTES))
  .openapi({ description: "A pipeline definition: {nodes, connections}", type: "object" });

const ModelField = { model: z.string().min(1).max(200).optional().openapi({ description: 'A model id from GET /api/llm-models; default "default"' }) };
const Description = z.string().trim().min(1).max(10_000);
const PipelineRefFields = {
  pipeline_id: z.string().min(1).max(100).optional().openapi({ description: "A stored pipeline of the organization" }),
  definition: Definition.optional(),
};
const onePipeline = (v: { pipeline_id?: string; definition?: unknown }) => (v.pipeline_id === undefined) !== (v.definition === undefined);
const ONE_PIPELINE = { message: "Give exactly one of pipeline_id and definition" };

export const FindingSchema = z
  .object({ node_id: z.string().nullable(), message: z.string(), path: z.string().optional() })
  .openapi("CopilotFinding");

export const ValidationSchema = z
  .object({ valid: z.boolean(), errors: z.array(FindingSchema), warnings: z.array(FindingSchema) })
  .openapi("CopilotValidation");

export const ValidateBody = z.object({ definition: Definition }).strict().openapi("CopilotValidateRequest");

const FieldErrors = z.array(z.array(z.object({ path: z.string(), message: z.string() })));
const Generated = { attempts: z.number().int(), repaired: FieldErrors.openapi({ description: "The validator's errors of each rejected attempt" }), model: z.string() };

export const GeneratedPipelineSchema = z
  .object({
    pipeline: z.object({ name: z.string(), description: z.string(), nodes: DefinitionSchema.shape.nodes, connections: DefinitionSchema.shape.connections }),
    warnings: z.array(FindingSchema),
    ...Generated,
  })
  .openapi("CopilotGeneratedPipeline");

export const GeneratePipelineBody = z.object({ description: Description, ...ModelField }).strict().openapi("CopilotGeneratePipelineRequest");

export const ModifyPipelineBody = z
  .object({ ...PipelineRefFields, instruction: Description, ...ModelField })
  .strict()
  .refine(onePipeline, ONE_PIPELINE)
  .openapi("CopilotModifyPipelineRequest");

export const RefinePipelineBody = z
  .object({ ...PipelineRefFields, goals: z.string().max(5000).optional(), ...ModelField })
  .strict()
  .refine(onePipeline, ONE_PIPELINE)
  .openapi("CopilotRefinePipelineRequest");

const BasedOn = { pipeline_id: z.string().nullable(), base_version: z.number().int().nullable() };
export const ModifiedPipelineSchema = GeneratedPipelineSchema.extend({ ...BasedOn, findings: z.array(z.string()).optional() }).openapi("CopilotModifiedPipeline");

export const GenerateAgentBody = z.object({ description: Description, ...ModelField }).strict().openapi("CopilotGenerateAgentRequest");
export const GeneratedAgentResponse = z
  .object({
    agent: CreateAgentBody.omit({ template_id: true, project_id: true }),
    warnings: z.array(FindingSchema),
    ...Generated,
  })
  .openapi("CopilotGeneratedAgent");

export const FhirQueriesBody = z.object({ description: Description, ...ModelField }).strict().openapi("CopilotFhirQueriesRequest");
export const FhirQueriesResponse = z
  .object({
    queries: z.array(z.string()).openapi({ description: "FHIR search requests, Type?param=value&..., each accepted by the store's search parser" }),
    warnings: z.array(z.string()).openapi({ description: "Parameters the parser did not know, dropped from the queries" }),
    attempts: z.number().int(),
    model: z.string(),
  })
  .openapi("CopilotFhirQueries");

export const Hl7MappingBody = z
  .object({
    description: Description,
    message_type: z.string().max(20).optional().openapi({ example: "ADT^A01" }),
    sample_message: z.string().max(1_000_000).optional().openapi({ description: "An HL7 v2 message the rules are read against" }),
    ...ModelField,
  })
  .strict()
  .openapi("CopilotHl7MappingRequest");
export const Hl7MappingResponse = z
  .object({
    message_type: z.string().nullable(),
    rules: z.array(MappingRuleSchema.extend({ sample_value: z.string().nullable().optional() })),
    warnings: z.array(z.string()),
    attempts: z.number().int(),
    model: z.string(),
  })
  .openapi("CopilotHl7Mapping");

export const CodeBody = z
  .object({
    description: Description,
    node_type: z.enum(CODE_NODE_TYPES).default("data.transform"),
    sample_inputs: z.array(z.unknown()).max(20).optional().openapi({ description: "Inputs the generated node is run on (test mode); a failure is repaired" }),
    ...ModelField,
  })
  .strict()
  .openapi("CopilotCodeRequest");
export const CodeResponse = z
  .object({
    node: z.object({ type: z.string(), config: z.record(z.string(), z.unknown()) }),
    explanation: z.string(),
    sample_results: z.array(z.object({ input: z.unknown(), outputs: z.record(z.string(), z.unknown()) })),
    attempts: z.number().int(),
    model: z.string(),
  })
  .openapi("CopilotCode");

export const AnalyzeBody = z
  .object({
    ...PipelineRefFields,
    agent_id: z.string().min(1).max(100).optional(),
    agent: z
      .object({
        name: z.string().optional(),
        prompt_template: z.string().max(20_000),
        system_prompt: z.string().max(20_000).optional(),
        tools: z.array(z.string().max(100)).max(50).default([]),
        model_config: z.object({ model: z.string(), max_tokens: z.number().int().default(1024), temperature: z.number().optional() }),
      })
      .optional(),
  })
  .strict()
  .refine((v) => [v.pipeline_id, v.definition, v.agent_id, v.agent].filter((x) => x !== undefined).length === 1, {
    message: "Give exactly one of pipeline_id, definition, agent_id and agent",
  })
  .openapi("CopilotAnalyzeRequest");

const NodeHistorySchema = z.object({
  runs: z.number().int(),
  failed: z.number().int(),
  failure_rate: z.number(),
  average_duration_ms: z.number().int(),
  errors: z.record(z.string(), z.number().int()),
});
export const AnalysisSchema = z
  .object({
    kind: z.enum(["pipeline", "agent"]),
    id: z.string().nullable(),
    errors: z.array(FindingSchema),
    warnings: z.array(FindingSchema),
    history: z
      .object({ executions: z.number().int(), completed: z.number().int(), failed: z.number().int(), success_rate: z.number().nullable(), nodes: z.record(z.string(), NodeHistorySchema) })
      .optional()
      .openapi({ description: "From the stored pipeline's most recent 200 execution records" }),
    recommendations: z.array(z.string()),
  })
  .openapi("CopilotAnalysis");

export const AgentIdParam = z.object({ agentId: z.string().min(1).max(100).openapi({ param: { name: "agentId", in: "path" } }) });
export const InsightsSchema = z
  .object({
    agent_id: z.string(),
    conversations: z.object({ total: z.number().int(), analyzed: z.number().int(), messages: z.number().int(), average_turns: z.number() }),
    tool_usage: z.record(z.string(), z.object({ calls: z.number().int(), errors: z.number().int() })),
    unused_tools: z.array(z.string()),
    errors: z.object({ tool_errors: z.number().int(), error_rate: z.number().nullable() }),
    turns: z
      .object({ total: z.number().int(), completed: z.number().int(), failed: z.number().int(), failures: z.record(z.string(), z.number().int()) })
      .openapi({ description: "Every recorded model turn (chat, conversation message, invocation, ai.agent node), failed ones by code (MODEL_ERROR, MODEL_TIMEOUT, TURN_ABORTED...)" }),
    tokens: z
      .object({
        estimated: z.boolean(),
        estimated_turns: z.number().int().openapi({ description: "Turns whose counts are estimates (about 4 characters a token) because the model reported no usage" }),
        source: z.enum(["reported", "stored_text"]),
        input: z.number().int(),
        output: z.number().int(),
        average_per_turn: z.number().int(),
      })
      .openapi({
        description:
          "reported: summed from the usage the model returned per turn (OpenAI-compatible usage.prompt_tokens/completion_tokens), `estimated` true when any turn's model returned none; stored_text: an agent with no recorded turns, estimated from its stored conversations",
      }),
    recommendations: z.array(z.string()),
  })
  .openapi("CopilotAgentInsights");

export const ConfigureNodeBody = z
  .object({ node_type: z.string().min(1).max(100), config: z.record(z.string(), z.unknown()).optional().openapi({ description: "What is already configured" }) })
  .strict()
  .openapi("CopilotConfigureNodeRequest");
const FilledSchema = z.object({ field: z.string(), value: z.unknown(), source: z.enum(["default", "connector", "enum", "example"]) });
const DetailSchema = z.object({ path: z.string(), message: z.string() });
export const NodeConfigurationSchema = z
  .object({ node_type: z.string(), config: z.record(z.string(), z.unknown()), filled: z.array(FilledSchema), missing: z.array(z.string()), valid: z.boolean(), errors: z.array(DetailSchema) })
  .openapi("CopilotNodeConfiguration");

export const PipelineRefBody = z.object(PipelineRefFields).strict().refine(onePipeline, ONE_PIPELINE).openapi("CopilotPipelineRef");
export const AutoConfiguredSchema = z
  .object({
    definition: DefinitionSchema,
    changes: z.array(FilledSchema.extend({ node_id: z.string() })),
    unresolved: z.array(z.object({ node_id: z.string(), missing: z.array(z.string()), errors: z.array(DetailSchema) })),
    ...BasedOn,
    validation: ValidationSchema,
  })
  .openapi("CopilotAutoConfigured");

export const DocsBody = z
  .object({ ...PipelineRefFields, name: z.string().max(200).optional(), description: z.string().max(5000).optional() })
  .strict()
  .refine(onePipeline, ONE_PIPELINE)
  .openapi("CopilotDocsRequest");
export const DocsSchema = z.object({ pipeline_id: z.string().nullable(), format: z.literal("markdown"), markdown: z.string() }).openapi("CopilotPipelineDocs");

export const InferSchemaBody = z
  .object({
    samples: z.array(z.unknown()).min(1).max(1000).superRefine(jsonAtMost(MAX_DEFINITION_BYTES)),
    max_enum: z.number().int().min(0).max(100).default(10).openapi({ description: "At most this many distinct strings make an enum (0: never)" }),
    min_enum_samples: z.number().int().min(2).max(1000).default(3),
  })
  .strict()
  .openapi("CopilotInferSchemaRequest");
export const InferredSchema = z.object({ schema: z.record(z.string(), z.unknown()), samples: z.number().int() }).openapi("CopilotInferredSchema");

export const SuggestBody = z
  .object({
    pipeline_id: z.string().min(1).max(100),
    use_model: z.boolean().default(false).openapi({ description: "Add the model's refinement (503 without a model)" }),
    goals: z.string().max(5000).optional(),
    ...ModelField,
  })
  .strict()
  .openapi("CopilotSuggestRequest");

const PatchOp = z.object({ op: z.string(), path: z.string(), value: z.unknown().optional(), from: z.string().optional() });
export const SuggestionSchema = z
  .object({
    id: z.string(),
    pipeline_id: z.string(),
    base_version: z.number().int(),
    kind: z.string().openapi({ description: "error_route, retry, configure or model" }),
    title: z.string(),
    rationale: z.string(),
    diff: z.array(PatchOp).openapi({ description: "RFC 6902 JSON Patch of the definition at base_version" }),
    status: z.enum(["open", "applied"]),
    applied_version: z.number().int().nullable(),
    created_at: z.string(),
    applied_at: z.string().nullable(),
  })
  .openapi("CopilotSuggestion");
export const SuggestionsResponse = z.object({ suggestions: z.array(SuggestionSchema), total_count: z.number().int() }).openapi("CopilotSuggestions");
export const SuggestionsQuery = PageQuery.extend({ pipeline_id: z.string().max(100).optional() });
export const SuggestionIdParam = z.object({ id: z.string().min(1).max(100).openapi({ param: { name: "id", in: "path" } }) });

export const presentSuggestion = (r: SuggestionRow): z.infer<typeof SuggestionSchema> => ({
  id: r.id,
  pipeline_id: r.pipelineId,
  base_version: r.baseVersion,
  kind: r.kind,
  title: r.title,
  rationale: r.rationale,
  diff: r.patch,
  status: r.status,
  applied_version: r.appliedVersion,
  created_at: r.createdAt,
  applied_at: r.appliedAt,
});

export const ChatBody = z
  .object({
    message: z.string().trim().min(1).max(20_000),
    stream: z.boolean().default(false),
    context: z.object({ pipeline_id: z.string().min(1).max(100).optional(), definition: Definition.optional() }).strict().optional(),
    ...ModelField,
  })
  .strict()
  .openapi("CopilotChatRequest");
export const ChatResponse = z
  .object({
    response: z.string(),
    reasoning_steps: z.array(z.object({ type: z.string(), content: z.string(), tool: z.string().optional(), params: z.unknown().optional(), result: z.unknown().optional() })),
    steps: z.number().int(),
    finish_reason: z.string(),
    model: z.string(),
    pipeline: z
      .object({ name: z.string(), definition: DefinitionSchema, warnings: z.array(FindingSchema), ...BasedOn })
      .nullable()
      .openapi({ description: "The last valid definition the copilot proposed" }),
    validation: ValidationSchema.nullable(),
  })
  .openapi("CopilotChat");

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    deterministic: z.object({ available: z.literal(true), node_types: z.number().int() }),
    model: z.object({ available: z.boolean(), id: z.string().nullable(), reason: z.string().optional() }),
  })
  .openapi("CopilotHealth");
