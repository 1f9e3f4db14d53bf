// The copilot's deterministic endpoints: no model, the service's own validator, node catalog
// and the organization's data.
import type { OrgContext } from "../../../platform/org-context";
import { badRequest } from "../../../platform/errors";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { autoConfigure, configureNode } from "../configure";
import type { ValidationReport } from "../findings";
import { inferSchema, type InferOptions } from "../infer-schema";
import { pipelineDocs } from "../pipeline-docs";
import { validatePipeline } from "../validate";
import { configureContext, loadPipeline, type PipelineRef } from "./context";

export function validate(ctx: OrgContext, definition: unknown): ValidationReport {
  return validatePipeline(definition, ctx.nodes, outboundPolicyOf(ctx.env));
}

export async function configureNodeFor(ctx: OrgContext, req: { node_type: string; config?: Record<string, unknown> }) {
  const type = ctx.nodes.get(req.node_type);
  if (!type) throw badRequest(`Unknown node type ${req.node_type}; see GET /api/node-catalog`);
  return configureNode(type, req.config ?? {}, await configureContext(ctx));
}

export async function autoConfigurePipeline(ctx: OrgContext, ref: PipelineRef) {
  const loaded = await loadPipeline(ctx, ref);
  const result = autoConfigure(loaded.definition, ctx.nodes, await configureContext(ctx));
  return { ...result, pipeline_id: loaded.row?.id ?? null, base_version: loaded.row?.version ?? null, validation: validate(ctx, result.definition) };
}

export async function documentPipeline(ctx: OrgContext, ref: PipelineRef & { name?: string; description?: string }) {
  const loaded = await loadPipeline(ctx, ref);
  const markdown = pipelineDocs(
    { name: ref.name ?? loaded.row?.name ?? loaded.name, description: ref.description ?? loaded.row?.description, definition: loaded.definition },
    ctx.nodes,
  );
  return { pipeline_id: loaded.row?.id ?? null, format: "markdown" as const, markdown };
}

export function inferSchemaOf(samples: unknown[], options: InferOptions) {
  return { schema: inferSchema(samples, options), samples: samples.length };
}
