// generate/pipeline, modify/pipeline and refine/pipeline: the model writes a definition
// from the real node catalog; the service's validator checks it and its errors go back to
// the model (bounded); only a definition the service accepts is returned.
import { z } from "@hono/zod-openapi";
import type { FieldError } from "../../../platform/errors";
import type { OutboundPolicy } from "../../../platform/outbound/policy";
import type { ResolvedModel } from "../../agents";
import { type Definition, DefinitionSchema, type NodeRegistry } from "../../pipelines";
import type { Finding } from "../findings";
import { validatePipeline } from "../validate";
import { catalogPrompt, DEFINITION_RULES } from "./catalog-prompt";
import { generateStructured } from "./structured";

/** What the model answers: loose enough to parse any attempt, so the validator (not zod) names the mistakes. */
export const GeneratedPipelineSchema = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  nodes: z.array(z.record(z.string(), z.unknown())),
  connections: z.array(z.record(z.string(), z.unknown())).default([]),
});

export interface GeneratedPipeline {
  pipeline: { name: string; description: string } & Definition;
  warnings: Finding[];
  attempts: number;
  repaired: FieldError[][];
  model: string;
}

export interface PipelineGeneration {
  model: ResolvedModel;
  registry: NodeRegistry;
  policy?: OutboundPolicy;
  attempts?: number;
}

const toField = (f: Finding): FieldError => ({ path: f.path ?? (f.node_id ? `nodes.${f.node_id}` : "definition"), message: f.message });

async function generateDefinition(g: PipelineGeneration, prompt: string): Promise<GeneratedPipeline> {
  const system = `You are the integration engineer's copilot of a clinical data integration service. You design pipelines as JSON.\n${DEFINITION_RULES}\nNode catalog:\n${catalogPrompt(g.registry)}\nAnswer with the JSON object only.`;
  const result = await generateStructured(
    {
      model: g.model.model,
      modelId: g.model.info.id,
      system,
      prompt,
      schema: GeneratedPipelineSchema,
      attempts: g.attempts,
      check: (value) => validatePipeline({ nodes: value.nodes, connections: value.connections }, g.registry, g.policy).errors.map(toField),
    },
    "pipeline definition",
  );
  const { name, description, nodes, connections } = result.value;
  // Checked above: parsing only applies the schema defaults (on_error, config).
  const definition = DefinitionSchema.parse({ nodes, connections });
  const report = validatePipeline(definition, g.registry, g.policy);
  return {
    pipeline: { name, description: description ?? "", ...definition },
    warnings: report.warnings,
    attempts: result.attempts,
    repaired: result.repaired,
    model: g.model.info.id,
  };
}

export function generatePipeline(g: PipelineGeneration, description: string): Promise<GeneratedPipeline> {
  return generateDefinition(g, `Design a pipeline for this request:\n${description}`);
}

/** Changes an existing definition as asked, keeping what the request does not touch. */
export function modifyPipeline(g: PipelineGeneration, current: { name: string; definition: Definition }, instruction: string): Promise<GeneratedPipeline> {
  return generateDefinition(
    g,
    `Here is the current pipeline "${current.name}":\n${JSON.stringify(current.definition)}\nChange it as follows, keeping node ids and everything the request does not touch:\n${instruction}\nAnswer with the complete new definition.`,
  );
}

/** Improves a definition against the copilot's findings (warnings, failure history) and the caller's goals. */
export function refinePipeline(g: PipelineGeneration, current: { name: string; definition: Definition }, findings: string[], goals?: string): Promise<GeneratedPipeline> {
  return generateDefinition(
    g,
    `Here is the pipeline "${current.name}":\n${JSON.stringify(current.definition)}\nOptimize it: fix these findings${goals ? ` and pursue these goals: ${goals}` : ""}, keeping its behaviour and node ids where possible.\n${findings.map((f) => `- ${f}`).join("\n") || "- (no findings: make it robust: error routes, retries on network nodes)"}\nAnswer with the complete new definition.`,
  );
}
