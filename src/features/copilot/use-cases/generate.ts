// The copilot's model-backed endpoints: each resolves the org's model first (503
// MODEL_UNAVAILABLE when there is none), generates against the service's own validators and
// returns only what passes them (422 GENERATION_INVALID with the last errors otherwise).
import type { OrgContext } from "../../../platform/org-context";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { builtinTools, describeTools, listModels, modelSources } from "../../agents";
import type { NodeType } from "../../pipelines";
import type { Principal } from "../../tenancy";
import { generateAgent } from "../generation/agent";
import { type CodeRequest, generateCode, type NodeRunner } from "../generation/code";
import { generateFhirQueries } from "../generation/fhir-queries";
import { generateHl7Mapping, type MappingRequest } from "../generation/hl7-mapping";
import { copilotModel } from "../generation/model";
import { generatePipeline, modifyPipeline, type PipelineGeneration, refinePipeline } from "../generation/pipeline";
import type { Hl7FieldPaths } from "../ports";
import { analyze } from "./analyze";
import { loadPipeline, type PipelineRef } from "./context";

export interface ModelChoice {
  model?: string;
}

async function pipelineGeneration(ctx: OrgContext, principal: Principal, req: ModelChoice): Promise<PipelineGeneration> {
  return { model: await copilotModel(ctx, principal, req.model), registry: ctx.nodes, policy: outboundPolicyOf(ctx.env) };
}

export async function generatePipelineFor(ctx: OrgContext, principal: Principal, req: ModelChoice & { description: string }) {
  return generatePipeline(await pipelineGeneration(ctx, principal, req), req.description);
}

export async function modifyPipelineFor(ctx: OrgContext, principal: Principal, req: ModelChoice & PipelineRef & { instruction: string }) {
  const g = await pipelineGeneration(ctx, principal, req);
  const loaded = await loadPipeline(ctx, req);
  const out = await modifyPipeline(g, loaded, req.instruction);
  return { ...out, pipeline_id: loaded.row?.id ?? null, base_version: loaded.row?.version ?? null };
}

export async function refinePipelineFor(ctx: OrgContext, principal: Principal, req: ModelChoice & PipelineRef & { goals?: string }) {
  const g = await pipelineGeneration(ctx, principal, req);
  const loaded = await loadPipeline(ctx, req);
  const analysis = await analyze(ctx, principal, loaded.row ? { pipeline_id: loaded.row.id } : { definition: loaded.definition });
  const findings = [...analysis.errors, ...analysis.warnings].map((f) => `${f.node_id ?? "pipeline"}: ${f.message}`);
  const out = await refinePipeline(g, loaded, findings, req.goals);
  return { ...out, pipeline_id: loaded.row?.id ?? null, base_version: loaded.row?.version ?? null, findings };
}

export async function generateAgentFor(ctx: OrgContext, principal: Principal, req: ModelChoice & { description: string }) {
  const model = await copilotModel(ctx, principal, req.model);
  const services = ctx.agents(principal);
  const [sources, custom] = await Promise.all([modelSources(ctx.env, services), services.listCustomTools()]);
  const tools = [...builtinTools(services), ...custom].map((t) => ({ name: t.name, description: t.description }));
  return generateAgent({ model, models: listModels(sources), tools, describe: (names) => describeTools(names, services) }, req.description);
}

export async function generateFhirQueriesFor(ctx: OrgContext, principal: Principal, req: ModelChoice & { description: string }) {
  return generateFhirQueries(await copilotModel(ctx, principal, req.model), ctx.fhir(principal), req.description);
}

export async function generateHl7MappingFor(ctx: OrgContext, principal: Principal, hl7: Hl7FieldPaths, req: ModelChoice & MappingRequest) {
  return generateHl7Mapping(await copilotModel(ctx, principal, req.model), hl7, req);
}

/** Runs one node on a sample, in test mode, with the org's test-mode services. */
function sampleRunner(ctx: OrgContext, principal: Principal): NodeRunner {
  return async (type: NodeType<unknown>, config, input) => {
    const result = await type.run({
      nodeId: "sample",
      config,
      inputs: { input },
      orgId: principal.orgId,
      executionId: "copilot-sample",
      testMode: true,
      trigger: { kind: "manual" },
      services: ctx.pipelines(principal, true),
      signal: AbortSignal.timeout(5_000),
      resumed: false,
      log: () => undefined,
      wouldWrite: () => undefined,
      runBody: () => Promise.reject(new Error("nested bodies are not run on samples")),
    });
    if ("waitUntil" in result) throw new Error("the node asked to wait");
    return result.outputs;
  };
}

export async function generateCodeFor(ctx: OrgContext, principal: Principal, req: ModelChoice & CodeRequest) {
  return generateCode(await copilotModel(ctx, principal, req.model), ctx.nodes.get(req.node_type), req, sampleRunner(ctx, principal));
}
