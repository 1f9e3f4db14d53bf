// The interface of the pipeline catalog's ai nodes, independent of the node
// registry (which lives with pipelines): metadata, a zod config schema, ports,
// and a run function from inputs to outputs.
import type { z } from "zod";
import type { Principal } from "../../tenancy/auth/permissions";
import type { Env } from "../../../platform/env";
import type { AgentServices } from "../services";

export interface Port {
  name: string;
  type: string;
}

export interface AiNodeContext {
  env: Env;
  principal: Principal;
  services: AgentServices;
  signal?: AbortSignal;
}

export interface AiNode<C extends z.ZodType> {
  id: string;
  name: string;
  category: "ai";
  description: string;
  inputs: Port[];
  outputs: Port[];
  configSchema: C;
  /** `config` must already satisfy configSchema; throws ApiError on failure. */
  run(config: z.infer<C>, inputs: Record<string, unknown>, ctx: AiNodeContext): Promise<Record<string, unknown>>;
}
