// The agents API's zod schemas (validation and OpenAPI: agents, chat, conversations,
// assigned tools, models, custom tools) and how stored rows are presented in responses.
import { z } from "@hono/zod-openapi";
import { PageQuery, json } from "../../platform/http/schemas";
import type { StoredMessage } from "./conversation";
import type { ModelInfo } from "./models";
import type { AgentConversationRow, AgentRow, AgentVersionRow } from "./tables";
import type { AssignedTool } from "./tools/registry";
import { ToolImplementationSchema } from "./tools/custom/definition";
import type { ToolRow } from "./tools/custom/tables";
import { hasInputPlaceholder } from "./prompt";
import { MAX_STEPS_LIMIT } from "./run";
import { AGENT_TYPES, type AgentTemplate } from "./templates";

export const ModelConfigSchema = z
  .object({
    model: z.string().min(1).max(200).openapi({ description: 'A model id from GET /api/llm-models, or "default"' }),
    temperature: z.number().min(0).max(2).default(0.2),
    max_tokens: z.number().int().min(1).max(32_768).default(1024),
    max_steps: z.number().int().min(1).max(MAX_STEPS_LIMIT).optional().openapi({
      description: "Model calls per turn in the tool loop (default 5); the last one is offered no tools",
    }),
  })
  .strict()
  .openapi("AgentModelConfig");

const PromptTemplate = z
  .string()
  .min(1)
  .max(20_000)
  .refine(hasInputPlaceholder, { message: "prompt_template must contain the placeholder {{input}}" });

const ToolNames = z.array(z.string().min(1).max(100)).max(50);

const fields = {
  name: z.string().trim().min(1).max(200),
  agent_type: z.enum(AGENT_TYPES).openapi({ description: AGENT_TYPES.join(", ") }),
  description: z.string().max(2000),
  model_config: ModelConfigSchema,
  system_prompt: z.string().max(20_000).openapi({ description: "Instructions given to the model as the system message" }),
  prompt_template: PromptTemplate.openapi({ description: "Wraps each message or input_data; must contain {{input}}" }),
  tools: ToolNames.openapi({ description: "Tool names (built-in or custom) the agent may call" }),
  project_id: z.string().min(1).max(100).nullable(),
};

const AgentFields = z.object(fields).partial();

export const CreateAgentBody = AgentFields.extend({
  template_id: z.string().max(100).optional().openapi({ description: "Start from a base template; given fields override it" }),
})
  .strict()
  .openapi("CreateAgent");

export const UpdateAgentBody = AgentFields.extend({ status: z.enum(["active", "inactive"]).optional() })
  .strict()
  .openapi("UpdateAgent");

export const AgentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    agent_type: z.string(),
    description: z.string(),
    status: z.enum(["active", "inactive"]),
    is_active: z.boolean(),
    deployed: z.boolean(),
    deployed_at: z.string().nullable(),
    is_template: z.boolean(),
    template_id: z.string().nullable(),
    project_id: z.string().nullable(),
    model_config: ModelConfigSchema,
    system_prompt: z.string(),
    prompt_template: z.string(),
    tools: z.array(z.string()),
    version: z.number().int().openapi({ description: "Number of the latest version snapshot (0: none yet)" }),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .openapi("Agent");
export type AgentBody = z.infer<typeof AgentSchema>;

export const AgentVersionSchema = z
  .object({
    agent_id: z.string(),
    version: z.number().int(),
    note: z.string().nullable(),
    created_at: z.string(),
    created_by: z.string().nullable(),
    snapshot: z.record(z.string(), z.unknown()),
  })
  .openapi("AgentVersion");

export function presentAgent(row: AgentRow): AgentBody {
  return {
    id: row.id,
    name: row.name,
    agent_type: row.agentType,
    description: row.description,
    status: row.status,
    is_active: row.status === "active",
    deployed: row.deployed,
    deployed_at: row.deployedAt,
    is_template: false,
    template_id: row.templateId,
    project_id: row.projectId,
    model_config: row.modelConfig,
    system_prompt: row.systemPrompt,
    prompt_template: row.promptTemplate,
    tools: row.tools,
    version: row.version,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function presentTemplate(t: AgentTemplate): AgentBody {
  return {
    id: t.id,
    name: t.name,
    agent_type: t.agent_type,
    description: t.description,
    status: "active",
    is_active: true,
    deployed: false,
    deployed_at: null,
    is_template: true,
    template_id: null,
    project_id: null,
    model_config: t.model_config,
    system_prompt: t.system_prompt,
    prompt_template: t.prompt_template,
    tools: t.tools,
    version: 0,
    created_at: null,
    updated_at: null,
  };
}

export function presentVersion(v: AgentVersionRow) {
  return {
    agent_id: v.agentId,
    version: v.version,
    note: v.note,
    created_at: v.createdAt,
    created_by: v.createdBy,
    snapshot: v.snapshot,
  };
}

export const ReasoningStepSchema = z
  .object({
    type: z.enum(["thinking", "tool_call", "tool_result"]),
    content: z.string(),
    tool: z.string().optional(),
    params: z.unknown().optional(),
    result: z.unknown().optional(),
  })
  .openapi("ReasoningStep");

export const TurnSchema = z
  .object({
    response: z.string(),
    reasoning_steps: z.array(ReasoningStepSchema),
    steps: z.number().int(),
    finish_reason: z.string(),
    model: z.string(),
    conversation_id: z.string().optional(),
  })
  .openapi("AgentTurn");

export const IdParam = z.object({ id: z.string().min(1).max(100).openapi({ param: { name: "id", in: "path" } }) });

const BoolParam = z.enum(["true", "false"]).transform((v) => v === "true");

export const AgentListQuery = PageQuery.extend({
  base_templates: BoolParam.optional().openapi({ description: "true: only the base templates" }),
  type: z.enum(AGENT_TYPES).optional(),
  is_active: BoolParam.optional(),
  project_id: z.string().max(100).optional(),
});

export const VersionParam = IdParam.extend({
  version: z.coerce.number().int().min(1).openapi({ param: { name: "version", in: "path" } }),
});

export const SnapshotBody = z.object({ note: z.string().max(500).optional() }).strict();

/** An agent or a base template, both answered in the Agent shape. */
export function presentListed(item: AgentRow | AgentTemplate): AgentBody {
  return "agentType" in item ? presentAgent(item) : presentTemplate(item);
}

// Chat and the public invoke endpoint.

export const ModelUnavailableError = {
  503: {
    description: "No usable model (MODEL_UNAVAILABLE)",
    content: json(z.object({ error: z.object({ code: z.string(), message: z.string(), status: z.number() }) })),
  },
};

export const ChatBody = z
  .object({
    message: z.string().min(1).max(32_000),
    stream: z.boolean().default(false),
    conversation_id: z.string().min(1).max(100).optional().openapi({
      description: "Continue a conversation (its history is sent to the model and the exchange is stored)",
    }),
  })
  .strict()
  .openapi("AgentChat");

export const InvokeBody = z
  .object({ input_data: z.record(z.string(), z.unknown()).openapi({ description: "Replaces {{input}} in the prompt template" }) })
  .strict()
  .openapi("AgentInvoke");

export const InvokeResultSchema = TurnSchema.extend({ agent_id: z.string(), output: z.string() });

// Conversations.

export const ConversationSchema = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    title: z.string(),
    message_count: z.number().int(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AgentConversation");

export const MessageSchema = z
  .object({
    id: z.number().int(),
    role: z.enum(["user", "assistant"]),
    content: z.string(),
    reasoning_steps: z.array(z.record(z.string(), z.unknown())).nullable(),
    created_at: z.string(),
  })
  .openapi("AgentMessage");

export const ConversationParam = IdParam.extend({ cid: z.string().min(1).max(100).openapi({ param: { name: "cid", in: "path" } }) });

export const StartConversationBody = z.object({ title: z.string().max(200).optional() }).strict();

export const SendMessageBody = z.object({ message: z.string().min(1).max(32_000), stream: z.boolean().default(false) }).strict();

export const presentConversation = (r: AgentConversationRow): z.infer<typeof ConversationSchema> => ({
  id: r.id,
  agent_id: r.agentId,
  title: r.title,
  message_count: r.messageCount,
  created_by: r.createdBy,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/** A stored message; its reasoning steps are kept as JSON text. */
export const presentMessage = (m: StoredMessage): z.infer<typeof MessageSchema> => ({
  ...m,
  reasoning_steps: m.reasoning_steps ? (JSON.parse(m.reasoning_steps) as Record<string, unknown>[]) : null,
});

// Tools assigned to an agent.

export const AssignedToolSchema = z
  .object({
    name: z.string(),
    kind: z.enum(["built-in", "custom"]),
    id: z.string().optional(),
    description: z.string(),
    available: z.boolean().openapi({ description: "false when the tool no longer exists or needs a missing module" }),
  })
  .openapi("AgentTool");

export const AssignToolBody = z.object({ tool: z.string().min(1).max(100) }).strict().openapi("AssignTool");

export const ToolParam = IdParam.extend({ toolId: z.string().min(1).max(100).openapi({ param: { name: "toolId", in: "path" } }) });

export const presentAssignedTools = (tools: AssignedTool[]) => ({ tools, total_count: tools.length });

// Language models.

export const ModelSchema = z
  .object({
    id: z.string().openapi({ description: "The value for model_config.model" }),
    name: z.string(),
    provider: z.enum(["workers-ai", "openai-compatible"]),
    endpoint_id: z.string(),
    capabilities: z.object({ tool_calling: z.boolean(), streaming: z.boolean() }),
    context_window: z.number().int(),
    pricing_tier: z.enum(["free", "low", "standard", "premium", "self-hosted"]),
  })
  .openapi("LlmModel");

export const presentModels = (models: ModelInfo[]) => ({ models, total_count: models.length });

// Custom tools (the request body is the tool definition itself).

export { ToolBody } from "./tools/custom/definition";

export const ToolSchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    implementation: ToolImplementationSchema,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Tool");

export const ToolIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export const ToolInvokeBody = z.object({ arguments: z.record(z.string(), z.unknown()).default({}) }).strict();

export const ToolInvokeResultSchema = z.object({
  ok: z.boolean(),
  result: z.unknown().openapi({ description: "What the tool answered; for a code tool that failed, its error ({ code, message, line?, column? })" }),
  execution_id: z.string().optional(),
  status: z.number().int().optional(),
  logs: z.array(z.string()).optional().openapi({ description: "A code tool's ctx.log lines (secrets masked)" }),
  would_write: z.array(z.object({ target: z.string(), payload: z.unknown() })).optional().openapi({ description: "A code tool in test mode: what it would have sent" }),
});

export const presentTool = (r: ToolRow): z.infer<typeof ToolSchema> => ({
  id: r.id,
  name: r.name,
  description: r.description,
  parameters: r.parameters,
  implementation: r.implementation as z.infer<typeof ToolImplementationSchema>,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
