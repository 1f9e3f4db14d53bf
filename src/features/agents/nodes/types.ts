// What the ai pipeline nodes share: the context they run with (models, agents and their
// tools, as the pipeline's principal, from the org context the pipeline services hand out)
// and their input port. The nodes themselves implement the pipelines' NodeType contract like every family.
import type { Env } from "../../../platform/env";
import type { OrgData } from "../../../platform/org-data";
import type { NodeContext, PortDef } from "../../pipelines";
import type { Principal } from "../../tenancy";
import type { AgentServices } from "../services";

export interface AiNodeContext {
  env: Env;
  /** The org's databases (the agent node reads the agent's row). */
  data: OrgData;
  principal: Principal;
  services: AgentServices;
  signal?: AbortSignal;
}

/** The ai context of a node run: the pipeline's agent services (tools in the run's mode) and the run's signal. */
export function aiContext(ctx: NodeContext<unknown>): AiNodeContext {
  const { env, data, principal, testMode } = ctx.services.ai();
  return { env, data, principal, services: data.agents(principal, { testMode }), signal: ctx.signal };
}

/** A model reads any value: objects are given to it as JSON text. */
export const AI_INPUTS: PortDef[] = [{ name: "input", type: "any", description: "Text, or any value (sent to the model as JSON)" }];
