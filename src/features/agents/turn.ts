// Prepares and runs one turn for a stored agent: resolves its model (503
// MODEL_UNAVAILABLE before anything streams), its assigned tools, its prompt and
// the history that fits, then hands over to the tool loop.
import type { Principal } from "../tenancy/auth/permissions";
import type { AgentRow } from "./tables";
import type { Env } from "../../platform/env";
import type { AgentEvent } from "./events";
import { fitHistory, type HistoryMessage, historyBudget } from "./history";
import { resolveModel } from "./models";
import { renderPrompt } from "./prompt";
import { runAgent } from "./run";
import type { AgentServices } from "./services";
import { agentTools } from "./tools/registry";
import { optionalBinding } from "../../platform/settings";

export interface TurnRequest {
  agent: AgentRow;
  input: unknown;
  history?: HistoryMessage[];
  signal?: AbortSignal;
}

export interface PreparedTurn {
  /** The rendered user message, as stored in conversation history. */
  userMessage: string;
  modelId: string;
  events: AsyncGenerator<AgentEvent>;
}

export async function prepareTurn(env: Env, principal: Principal, services: AgentServices, req: TurnRequest): Promise<PreparedTurn> {
  const { agent } = req;
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
    events: runAgent({
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
  };
}
