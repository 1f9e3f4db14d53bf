// The language models the caller's organization can use.
import type { OrgData } from "../../../platform/org-data";
import { agentServicesFor } from "../../../main/wiring";
import type { Principal } from "../../tenancy/auth/permissions";
import { modelSources } from "../access";
import { type ModelInfo, listModels } from "../models";

export async function availableModels(data: OrgData, principal: Principal): Promise<ModelInfo[]> {
  const { env } = data;
  return listModels(await modelSources(env, agentServicesFor(data, principal)));
}
