// Lookups the agents' use cases share: loading an agent of the caller's org, which
// agents exist (for API key scopes), the model sources for the caller, and checking
// a model_config against the models the org has.
import type { OrgContext } from "../../platform/org-context";
import type { Principal } from "../tenancy";
import type { Database } from "../../platform/db/client";
import type { AgentModelConfig, AgentRow } from "./tables";
import type { Env } from "../../platform/env";
import { agentNotDeployed, agentNotFound, validationFailed } from "../../platform/errors";
import { DEFAULT_MODEL, type ModelSources, findModel, listModels } from "./models";
import type { AgentServices } from "./services";
import { AgentStore } from "./store";
import { optionalBinding } from "../../platform/settings";

export async function loadAgent(db: Database, orgId: string, id: string, opts: { deployed?: boolean } = {}): Promise<AgentRow> {
  const agent = await new AgentStore(db).get(orgId, id);
  if (!agent) throw agentNotFound(id);
  if (opts.deployed && !agent.deployed) throw agentNotDeployed(id);
  return agent;
}

/** Which of `ids` are agents of the org. */
export function existingAgentIds(db: Database, orgId: string, ids: string[]): Promise<Set<string>> {
  return new AgentStore(db).existing(orgId, ids);
}

export async function modelSources(env: Env, services: AgentServices): Promise<ModelSources> {
  return { ai: optionalBinding<Ai>(env, "AI"), endpoints: await services.modelEndpoints() };
}

/** "default" is always accepted (resolved when the agent runs); other ids must be offered to the org. */
export async function checkModelConfig(ctx: OrgContext, principal: Principal, config: AgentModelConfig): Promise<void> {
  const { env } = ctx;
  if (config.model === DEFAULT_MODEL) return;
  const models = listModels(await modelSources(env, ctx.agents(principal)));
  const found = findModel(models, config.model);
  if (!found) {
    throw validationFailed("Unknown model", [
      {
        path: "model_config.model",
        message: `Model "${config.model}" is not available to this organization; see GET /api/llm-models (or use "default")`,
      },
    ]);
  }
  if (config.max_tokens >= found.context_window) {
    throw validationFailed("max_tokens too large", [
      { path: "model_config.max_tokens", message: `Must be below the model's context window of ${found.context_window}` },
    ]);
  }
}
