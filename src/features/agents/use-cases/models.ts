// The language models the caller's organization can use.
import type { OrgContext } from "../../../platform/org-context";
import type { Principal } from "../../tenancy";
import { modelSources } from "../access";
import { type ModelInfo, listModels } from "../models";

export async function availableModels(ctx: OrgContext, principal: Principal): Promise<ModelInfo[]> {
  const { env } = ctx;
  return listModels(await modelSources(env, ctx.agents(principal)));
}
