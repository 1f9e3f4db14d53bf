// Helpers routes share: loading an agent of the caller's org, the model sources
// for the caller, and checking a model_config against the models the org has.
import { type Principal, scopedAgentId } from "../tenancy/auth/permissions";
import { database } from "../../platform/db/client";
import type { AgentModelConfig, AgentRow } from "./tables";
import type { Env } from "../../platform/env";
import { agentNotDeployed, agentNotFound, validationFailed } from "../../platform/errors";
import { DEFAULT_MODEL, type ModelSources, findModel, listModels } from "./models";
import { agentServicesFor } from "../../service-wiring";
import type { AgentServices } from "./services";
import { AgentStore } from "./store";
import { optionalBinding } from "../../platform/settings";

export const agentStore = (env: Env) => new AgentStore(database(env.DB));

export async function loadAgent(env: Env, principal: Principal, id: string, opts: { deployed?: boolean } = {}): Promise<AgentRow> {
  const agent = await agentStore(env).get(principal.orgId, id);
  if (!agent) throw agentNotFound(id);
  if (opts.deployed && !agent.deployed) throw agentNotDeployed(id);
  return agent;
}

/** 400 unless every agent the scopes name is an agent of the org: a key scoped to nothing is a mistake. */
export async function checkScopedAgents(env: Env, orgId: string, scopes: string[]): Promise<void> {
  const ids = scopes.map(scopedAgentId);
  const found = await agentStore(env).existing(orgId, ids.filter((id): id is string => id !== undefined));
  const missing = ids.flatMap((id, i) => (id !== undefined && !found.has(id) ? [{ id, path: `scopes.${i}` }] : []));
  if (missing.length) {
    throw validationFailed(
      `No agent ${missing.map((m) => m.id).join(", ")} in this organization`,
      missing.map((m) => ({ path: m.path, message: `No agent ${m.id} in this organization` })),
    );
  }
}

export async function modelSources(env: Env, services: AgentServices): Promise<ModelSources> {
  return { ai: optionalBinding<Ai>(env, "AI"), endpoints: await services.modelEndpoints() };
}

/** "default" is always accepted (resolved when the agent runs); other ids must be offered to the org. */
export async function checkModelConfig(env: Env, principal: Principal, config: AgentModelConfig): Promise<void> {
  if (config.model === DEFAULT_MODEL) return;
  const models = listModels(await modelSources(env, agentServicesFor(env, principal)));
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
