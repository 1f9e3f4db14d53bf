// Prepares and runs one turn for a stored agent: resolves its model (503
// MODEL_UNAVAILABLE before anything streams), its assigned tools, its prompt and
// the history that fits, then hands over to the tool loop.
import type { Principal } from "../tenancy";
import type { AgentRow } from "./tables";
import type { OrgData } from "../../platform/org-data";
import type { AgentEvent } from "./events";
import { fitHistory, type HistoryMessage, historyBudget } from "./history";
import { resolveModel } from "./models";
import { renderPrompt } from "./prompt";
import { runAgent } from "./run";
import type { AgentServices } from "./services";
import { agentTools } from "./tools/registry";
import { recordingTurn } from "./turn-log";
import { optionalBinding } from "../../platform/settings";

export interface TurnRequest {
  agent: AgentRow;
  input: unknown;
  history?: HistoryMessage[];
  /** The conversation the turn belongs to, recorded with its usage. */
  conversationId?: string;
  signal?: AbortSignal;
}

export interface PreparedTurn {
  /** The rendered user message, as stored in conversation history. */
  userMessage: string;
  modelId: string;
  events: AsyncGenerator<AgentEvent>;
}

/** The turn's events; the turn (usage, outcome) is recorded in agent_turns as it ends (turn-log.ts). */
export async function prepareTurn(data: OrgData, principal: Principal, services: AgentServices, req: TurnRequest): Promise<PreparedTurn> {
  const { agent } = req;
  const { env } = data;
  const resolved = resolveModel({ ai: optionalBinding<Ai>(env, "AI"), endpoints: await services.modelEndpoints() }, agent.modelConfig.model);
  const tools = await agentTools(agent.tools, services, {
    agentId: agent.id,
    agentName: agent.name,
    keyId: principal.keyId,
  });
  const userMessage = renderPrompt(agent.promptTemplate, req.input);
  const budget = historyBudget({
    contextWindow: resolved.info.context_window,
    maxOutputTokens: agent.modelConfig.max_tokens,
    system: agent.systemPrompt,
    current: userMessage,
    toolCount: tools.length,
  });
  const { messages } = fitHistory(req.history ?? [], budget);
  messages.push({ role: "user", content: userMessage });
  return {
    userMessage,
    modelId: resolved.info.id,
    events: recordingTurn(
      data,
      {
        agentId: agent.id,
        keyId: principal.keyId,
        model: resolved.info.id,
        promptChars: agent.systemPrompt.length + messages.reduce((n, m) => n + JSON.stringify(m.content).length, 0),
        ...(req.conversationId ? { conversationId: req.conversationId } : {}),
      },
      runAgent({
      model: resolved.model,
      modelId: resolved.info.id,
      system: agent.systemPrompt || undefined,
      messages,
      tools,
      agentId: agent.id,
      temperature: agent.modelConfig.temperature,
      maxTokens: agent.modelConfig.max_tokens,
      maxSteps: agent.modelConfig.max_steps,
      signal: req.signal,
      }),
    ),
  };
}
