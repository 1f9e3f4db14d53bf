// Static findings on an agent's configuration: assigned tools that do not exist (or whose
// module is absent), a prompt template without {{input}} (the message would never reach the
// model), a model the organization cannot use, and token budgets that cannot fit.
import { type AssignedTool, DEFAULT_MODEL, findModel, hasInputPlaceholder, type ModelInfo, noModelMessage } from "../agents";
import type { Finding } from "./findings";

export interface AgentShape {
  name?: string;
  prompt_template: string;
  system_prompt?: string;
  tools: string[];
  model_config: { model: string; max_tokens: number; temperature?: number };
}

export function agentFindings(agent: AgentShape, tools: AssignedTool[], models: ModelInfo[]): { errors: Finding[]; warnings: Finding[] } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const at = (path: string, message: string) => ({ node_id: null, path, message });
  tools.forEach((t, i) => {
    if (!t.available) errors.push(at(`tools.${i}`, `Tool ${t.name} is assigned but does not exist in this organization (or its module is absent)`));
  });
  if (!hasInputPlaceholder(agent.prompt_template)) {
    errors.push(at("prompt_template", "The prompt template has no {{input}} placeholder: the chat message or input_data never reaches the model"));
  }
  const model = findModel(models, agent.model_config.model);
  if (!model) errors.push(at("model_config.model", noModelMessage(models, agent.model_config.model)));
  else {
    if (agent.model_config.max_tokens >= model.context_window) {
      errors.push(at("model_config.max_tokens", `max_tokens ${agent.model_config.max_tokens} leaves no room for the prompt in ${model.id}'s context window of ${model.context_window}`));
    }
    if (tools.length && !model.capabilities.tool_calling) warnings.push(at("model_config.model", `${model.id} cannot call tools, but ${tools.length} are assigned`));
  }
  if (agent.model_config.model === DEFAULT_MODEL && model) warnings.push(at("model_config.model", `"default" currently resolves to ${model.id}; name a model to keep answers stable`));
  if (!agent.system_prompt?.trim()) warnings.push(at("system_prompt", "No system prompt: the agent's role, limits and output format are left to the model"));
  if ((agent.model_config.temperature ?? 0) > 1) warnings.push(at("model_config.temperature", "A temperature above 1 makes clinical answers less reproducible"));
  return { errors, warnings };
}
