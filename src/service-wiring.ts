// The one place the pipeline and agent seams are wired to each other. Pipelines run
// agents (ai nodes) and agents run pipelines (run_pipeline, pipeline tools), so neither
// seam imports the other's concrete module: each takes the other as a parameter here,
// and callers import the wired functions from this module.
import { type AgentServiceOptions, type AgentServices, type AgentServicesFactory, agentServices } from "./features/agents/services";
import type { Principal } from "./features/tenancy/auth/permissions";
import type { ToolRow } from "./features/agents/tools/custom/tables";
import type { OrgData } from "./platform/org-data";
import {
  type Execute,
  type ExecutionJob,
  type OpenExecutionBatch,
  execute as executeWith,
  openExecutionBatch as openExecutionBatchWith,
  runFor as runForWith,
} from "./features/pipelines/execution-service";
import { type PipelineServices, buildPipelineServices } from "./features/pipelines/services";
import { invokeTool as invokeToolWith } from "./features/agents/tools/custom/invoke";
import { patientVitals } from "./features/devices/use-cases/vitals";
import { serviceProfileOf } from "./platform/service-profiles";
import { FHIR_EXTENSIONS } from "./fhir-extensions";
import type { ServiceProfile } from "./service-profile";

/** Runs a pipeline with the real services (FHIR store, connectors, agents). */
export const execute: Execute = (data, orgId, req) => executeWith(data, orgId, req, pipelineServicesFor);

/** Many runs under one concurrency slot, with the real services (the message drain's). */
export const openExecutionBatch: OpenExecutionBatch = (env, orgId, opts) => openExecutionBatchWith(env, orgId, pipelineServicesFor, opts);

/** An execution run (sync, async runner or step session) with the real services. */
export const runFor = (data: OrgData, job: ExecutionJob, durableWaits: boolean) => runForWith(data, job, durableWaits, pipelineServicesFor);

/** Calls a custom tool; pipeline tools run through `execute`. */
export const invokeTool = (data: OrgData, orgId: string, tool: ToolRow, args: Record<string, unknown>, concurrencyLimit: number, testMode?: boolean) =>
  invokeToolWith(execute, data, orgId, tool, args, concurrencyLimit, testMode);

const realAgentServices: AgentServicesFactory = (data, principal, options) => {
  const services = agentServices(data, principal, options, { execute, invokeTool: invokeToolWith }, FHIR_EXTENSIONS);
  // The devices module's vitals query, read through the agent's own view of the FHIR store.
  return { ...services, vitals: (q) => patientVitals(data, services.fhir(), q.patientId, q.metric, q.days) };
};

/** The agents' seam for a principal: pipelines and tools wired to the real runner (or the deployment's service profile). */
export function agentServicesFor(data: OrgData, principal: Principal, options?: AgentServiceOptions): AgentServices {
  return serviceProfileOf<ServiceProfile>(data.env)?.agents?.(data, principal, options) ?? realAgentServices(data, principal, options);
}

/** The pipelines' seam for a principal, with the agents wired in. */
export function pipelineServicesFor(data: OrgData, principal: Principal, testMode: boolean): PipelineServices {
  return buildPipelineServices(data, principal, testMode, agentServicesFor, FHIR_EXTENSIONS);
}
