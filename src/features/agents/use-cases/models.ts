// The language models the caller's organization can use.
import type { Env } from "../../../platform/env";
import { agentServicesFor } from "../../../service-wiring";
import type { Principal } from "../../tenancy/auth/permissions";
import { modelSources } from "../access";
import { type ModelInfo, listModels } from "../models";

export async function availableModels(env: Env, principal: Principal): Promise<ModelInfo[]> {
  return listModels(await modelSources(env, agentServicesFor(env, principal)));
}
