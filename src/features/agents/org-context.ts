// What agents add to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { Principal } from "../tenancy";
import type { AgentServiceOptions, AgentServices } from "./services";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The agents' seam for a principal: pipelines and tools wired to the real runner (or the deployment's service profile). */
    agents(principal: Principal, options?: AgentServiceOptions): AgentServices;
  }
}
