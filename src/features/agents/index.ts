// What other features use of agents: loading agents and their conversations, the models an
// org can use, the tool loop and its events, the tools, the SSE encoding and the turn log.
// (Agents' services for a principal come from the org context's `agents`,
// src/features/agents/org-context.ts.)
export { existingAgentIds, loadAgent, modelSources } from "./access";
export { conversationStub } from "./chat";
export { type AgentEvent, collectTurn, type ReasoningStep } from "./events";
export { classifyModelError } from "./model-errors";
export { DEFAULT_MODEL, findModel, listModels, type ModelInfo, noModelMessage, type ResolvedModel, resolveModel } from "./models";
export { hasInputPlaceholder } from "./prompt";
export { runAgent } from "./run";
export { CreateAgentBody } from "./schemas";
export { SSE_HEADERS, sseFrame, ssePayload, sseStream } from "./sse";
export { AgentStore } from "./store";
export { AGENT_TYPES } from "./templates";
export { builtinTools } from "./tools/builtin";
export { type AssignedTool, describeTools } from "./tools/registry";
export type { AgentTool } from "./tools/types";
export { CHARS_PER_TOKEN, recordingTurn, turnTotals } from "./turn-log";

