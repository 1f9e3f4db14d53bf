// generate/code: the logic of a custom node. The service's custom logic lives in expression
// nodes (JSONata in data.transform, data.filter, data.set_fields; FHIRPath in data.fhirpath) and in
// the code.javascript node (a JavaScript module run in the sandbox, docs/code.md), so the copilot
// writes that node's configuration, checked by the node's own config schema (which compiles the
// expression) and its config check (which parses the module), and, with sample inputs, by running
// the node on them (test mode: a code node's module runs in the sandbox with its limits).
import { z } from "@hono/zod-openapi";
import type { FieldError } from "../../../platform/errors";
import { badRequest } from "../../../platform/errors";
import type { ResolvedModel } from "../../agents";
import { configJsonSchema, type NodeType } from "../../pipelines";
import { generateStructured } from "./structured";

export const CODE_NODE_TYPES = ["data.transform", "data.filter", "data.set_fields", "data.fhirpath", "code.javascript"] as const;

export const GeneratedCodeSchema = z.object({
  config: z.record(z.string(), z.unknown()),
  explanation: z.string().max(4000).default(""),
});

export type NodeRunner = (type: NodeType<unknown>, config: unknown, input: unknown) => Promise<Record<string, unknown>>;

export interface CodeRequest {
  description: string;
  node_type: string;
  sample_inputs?: unknown[];
}

/** A failed sample run for the model: the message, with the error's code and place when it has them (a code node's CODE_ERROR). */
function failure(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const { code, details } = e as Error & { code?: string; details?: { line?: number; column?: number } };
  const at = details?.line ? ` at line ${details.line}, column ${details.column ?? "?"}` : "";
  return `${code ? `${code}: ` : ""}${e.message}${at}`;
}

export async function generateCode(model: ResolvedModel, type: NodeType<unknown> | undefined, req: CodeRequest, runNode: NodeRunner, attempts?: number) {
  if (!type || !(CODE_NODE_TYPES as readonly string[]).includes(type.id)) throw badRequest(`node_type must be one of ${CODE_NODE_TYPES.join(", ")}`);
  const samples = req.sample_inputs ?? [];
  const results: { input: unknown; outputs: Record<string, unknown> }[] = [];
  const check = async (value: z.infer<typeof GeneratedCodeSchema>): Promise<FieldError[]> => {
    const parsed = type.config.safeParse(value.config);
    if (!parsed.success) return parsed.error.issues.map((i) => ({ path: `config.${i.path.join(".")}`, message: i.message }));
    await type.prepare?.();
    const invalid = type.validateConfig?.(parsed.data) ?? [];
    if (invalid.length) return invalid.map((e) => ({ path: `config.${e.path}`, message: e.message }));
    results.length = 0;
    for (const [i, input] of samples.entries()) {
      try {
        results.push({ input, outputs: await runNode(type, parsed.data, input) });
      } catch (e) {
        return [{ path: `sample_inputs.${i}`, message: `Running on this sample failed: ${failure(e)}` }];
      }
    }
    return [];
  };
  const result = await generateStructured(
    {
      model: model.model,
      modelId: model.info.id,
      system: `You write the configuration of the pipeline node ${type.id}: ${type.description}\nIts config schema: ${JSON.stringify(configJsonSchema(type))}\nExample: ${JSON.stringify(type.documentation.example)}\nAnswer {"config": {...}, "explanation": "..."}.`,
      prompt: `${req.description}${samples.length ? `\nSample inputs:\n${samples.map((s) => JSON.stringify(s)).join("\n")}` : ""}`,
      schema: GeneratedCodeSchema,
      attempts,
      check,
    },
    `${type.id} configuration`,
  );
  return { node: { type: type.id, config: result.value.config }, explanation: result.value.explanation, sample_results: results, attempts: result.attempts, model: model.info.id };
}
