// The copilot's model: the organization's models as agents see them (Workers AI, the
// deployment's OpenAI-compatible endpoint, the org's model connectors), through the agents'
// model module. None configured: 503 MODEL_UNAVAILABLE before any work starts.
import type { OrgContext } from "../../../platform/org-context";
import { DEFAULT_MODEL, modelSources, type ResolvedModel, resolveModel } from "../../agents";
import type { Principal } from "../../tenancy";

export async function copilotModel(ctx: OrgContext, principal: Principal, requested?: string): Promise<ResolvedModel> {
  return resolveModel(await modelSources(ctx.env, ctx.agents(principal)), requested ?? DEFAULT_MODEL);
}
