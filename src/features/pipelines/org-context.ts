// What pipelines add to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { Principal } from "../tenancy";
import type { ExecutionRun } from "./engine";
import type { ExecuteRequest, ExecutionBatch, ExecutionJob, ExecutionResponse } from "./execution-service";
import type { NodeRegistry } from "./registry";
import type { PipelineServices } from "./services";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** Every node type this deployment offers (src/main/plugins.ts), built once per isolate. */
    readonly nodes: NodeRegistry;
    /** The pipelines' seam for a principal (what nodes reach the store, connectors, files and agents through). */
    pipelines(principal: Principal, testMode: boolean): PipelineServices;
    /** Runs a pipeline of the org with the real services: here when sync, in its ExecutionRunner when async. */
    execute(req: ExecuteRequest): Promise<ExecutionResponse>;
    /** Many runs under one concurrency slot with the real services (the message drain's). */
    openExecutionBatch(opts: { versionTtlMs: number }): ExecutionBatch;
    /** An execution run (sync, async runner or step session) with the real services. */
    runFor(job: ExecutionJob, durableWaits: boolean): ExecutionRun;
  }
}
