// What pipelines add to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { Principal } from "../tenancy/auth/permissions";
import type { PipelineServices } from "./services";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The pipelines' seam for a principal, with the agents wired in. */
    pipelines(principal: Principal, testMode: boolean): PipelineServices;
  }
}
