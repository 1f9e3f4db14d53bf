// D1 tables of agents: their configuration, version snapshots and the index of
// conversations (the messages live in each conversation's Durable Object).
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export interface AgentModelConfig {
  model: string;
  temperature: number;
  max_tokens: number;
  max_steps?: number;
}

export const agents = sqliteTable(
  "agents",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    agentType: text("agent_type").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: ["active", "inactive"] }).notNull(),
    deployed: integer("deployed", { mode: "boolean" }).notNull().default(false),
    deployedAt: text("deployed_at"),
    projectId: text("project_id"),
    modelConfig: text("model_config", { mode: "json" }).$type<AgentModelConfig>().notNull(),
    systemPrompt: text("system_prompt").notNull().default(""),
    promptTemplate: text("prompt_template").notNull(),
    tools: text("tools", { mode: "json" }).$type<string[]>().notNull().default([]),
    templateId: text("template_id"),
    version: integer("version").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index("agents_org_created_idx").on(t.orgId, t.createdAt),
    index("agents_org_type_idx").on(t.orgId, t.agentType),
    index("agents_org_project_idx").on(t.orgId, t.projectId),
  ],
);

export const agentVersions = sqliteTable(
  "agent_versions",
  {
    orgId: text("org_id").notNull(),
    agentId: text("agent_id").notNull(),
    version: integer("version").notNull(),
    /** The agent's configuration at snapshot time (see AgentSnapshot). */
    snapshot: text("snapshot", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    note: text("note"),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.agentId, t.version] })],
);

export const agentConversations = sqliteTable(
  "agent_conversations",
  {
    orgId: text("org_id").notNull(),
    agentId: text("agent_id").notNull(),
    id: text("id").notNull(),
    title: text("title").notNull().default(""),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    messageCount: integer("message_count").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.agentId, t.id] }),
    index("agent_conversations_org_agent_updated_idx").on(t.orgId, t.agentId, t.updatedAt),
  ],
);

export type AgentRow = typeof agents.$inferSelect;
export type AgentVersionRow = typeof agentVersions.$inferSelect;
export type AgentConversationRow = typeof agentConversations.$inferSelect;

/**
 * One row per model turn of an agent or the copilot's chat (completed or failed): the tokens the
 * model reported (or, when it reported none, an estimate, flagged), the outcome and its reason.
 * GET /api/copilot/insights/{agentId} aggregates it.
 */
export const agentTurns = sqliteTable(
  "agent_turns",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    /** The agent's id, or "copilot" for the copilot's chat. */
    agentId: text("agent_id").notNull(),
    conversationId: text("conversation_id"),
    keyId: text("key_id").notNull(),
    model: text("model").notNull(),
    status: text("status", { enum: ["completed", "failed"] }).notNull(),
    /** The failure's code (MODEL_ERROR, MODEL_TIMEOUT, TURN_ABORTED...) and message, for failed turns. */
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    /** 1: the counts are the model's own (`usage`); 0: estimated from the text (about 4 characters a token). */
    usageReported: integer("usage_reported", { mode: "boolean" }).notNull(),
    steps: integer("steps").notNull(),
    toolCalls: integer("tool_calls").notNull(),
    toolErrors: integer("tool_errors").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("agent_turns_org_agent_created_idx").on(t.orgId, t.agentId, t.createdAt)],
);

export type AgentTurnRow = typeof agentTurns.$inferSelect;
