// The one place the pipeline and agent seams get their real collaborators. Pipelines run
// agents (ai nodes) and agents run pipelines (run_pipeline, pipeline tools), so neither
// seam imports the other's concrete module: the runs take the pipelines' services as a
// parameter here, the ai nodes reach the agents through the org context (`agents`), and
// the agents reach the runs through it (`execute`). src/main/context.ts puts each on the context.
import { type AgentServiceOptions, type AgentServices, type AgentServicesFactory, agentServices } from "../features/agents/services";
import type { Principal } from "../features/tenancy/auth/permissions";
import type { OrgContext } from "../platform/org-context";
import {
  type ExecuteRequest,
  type ExecutionJob,
  execute as executeWith,
  openExecutionBatch as openExecutionBatchWith,
  runFor as runForWith,
} from "../features/pipelines/execution-service";
import { buildPipelineServices } from "../features/pipelines/services";
import { patientVitals } from "../features/devices/use-cases/vitals";
import { serviceProfileOf } from "../platform/service-profiles";
import type { ServiceProfile } from "./service-profile";

/** Runs a pipeline with the real services (FHIR store, connectors, agents). */
export const execute = (ctx: OrgContext, req: ExecuteRequest) => executeWith(ctx, req, buildPipelineServices);

/** Many runs under one concurrency slot, with the real services (the message drain's). */
export const openExecutionBatch = (ctx: OrgContext, opts: { versionTtlMs: number }) => openExecutionBatchWith(ctx, buildPipelineServices, opts);

/** An execution run (sync, async runner or step session) with the real services. */
export const runFor = (ctx: OrgContext, job: ExecutionJob, durableWaits: boolean) => runForWith(ctx, job, durableWaits, buildPipelineServices);

const realAgentServices: AgentServicesFactory = (ctx, principal, options) => {
  const services = agentServices(ctx, principal, options);
  // The devices module's vitals query, read through the agent's own view of the FHIR store.
  return { ...services, vitals: (q) => patientVitals(ctx, services.fhir(), q.patientId, q.metric, q.days) };
};

/** The agents' seam for a principal: pipelines and tools run through the context (or the deployment's service profile). */
export function agentServicesFor(ctx: OrgContext, principal: Principal, options?: AgentServiceOptions): AgentServices {
  return serviceProfileOf<ServiceProfile>(ctx.env)?.agents?.(ctx, principal, options) ?? realAgentServices(ctx, principal, options);
}

/** The pipelines' seam for a principal (its ai nodes take the agents' seam from the context). */
export const pipelineServicesFor = buildPipelineServices;
