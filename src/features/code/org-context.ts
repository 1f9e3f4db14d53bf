// What the code feature adds to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { Principal } from "../tenancy";
import type { CodeRunner } from "./runner";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** Runs tenant code outside a pipeline (a code-backed tool) as `principal`, with the deployment's codecs in ctx. */
    code(principal: Principal, testMode: boolean): CodeRunner;
  }
}
