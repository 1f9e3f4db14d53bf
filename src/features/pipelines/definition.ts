// The shape of a pipeline definition: nodes (catalog type, config, run policy)
// and connections between ports. Zod is the single source for the API and storage.
import { z } from "@hono/zod-openapi";
import { isPrototypeKey } from "../../platform/object-keys";

/** Node ids and port names become object keys in run state: never one that reaches a prototype. */
export const NOT_PROTOTYPE_KEY = [(name: string) => !isPrototypeKey(name), "__proto__, prototype and constructor are reserved"] as const;

export const RetryPolicySchema = z
  .object({
    max_attempts: z.number().int().min(1).max(10).default(1),
    backoff_ms: z.number().int().min(0).max(60_000).default(200),
    backoff_factor: z.number().min(1).max(10).default(2),
  })
  .strict();

export const NodeSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - (max 64)")
      .refine(...NOT_PROTOTYPE_KEY),
    type: z.string().min(1).openapi({ description: "Node catalog id, e.g. data.transform" }),
    config: z.record(z.string(), z.unknown()).default({}),
    position: z.object({ x: z.number(), y: z.number() }).optional(),
    // zod's record drops a "__proto__" key without a word: the raw keys are checked first, so such
    // a pin is refused rather than saved without its port.
    pinned_input: z
      .preprocess((raw, ctx) => {
        if (raw && typeof raw === "object" && Object.keys(raw).some(isPrototypeKey)) ctx.addIssue({ code: "custom", message: NOT_PROTOTYPE_KEY[1] });
        return raw;
      }, z.record(z.string(), z.unknown()))
      .optional()
      .openapi({ description: "Test input pinned to the node in the editor, by input port; \"run from here\" sends it. Runs ignore it." }),
    timeout_ms: z.number().int().min(1).max(300_000).optional().openapi({ description: "Per-attempt timeout" }),
    retry: RetryPolicySchema.optional(),
    on_error: z
      .enum(["stop", "continue", "route"])
      .default("stop")
      .openapi({ description: "stop the execution, continue without this node's outputs, or route to its error port" }),
  })
  .strict();

export const PortRefSchema = z.object({ node: z.string().refine(...NOT_PROTOTYPE_KEY), port: z.string().refine(...NOT_PROTOTYPE_KEY) }).strict();

export const ConnectionSchema = z.object({ from: PortRefSchema, to: PortRefSchema }).strict();

/**
 * A definition is one row in pipelines and one per kept version: generous for node configs
 * (mapping tables, schemas, prompts), far below D1's 2 MB row; large data belongs in inputs.
 */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

export const DefinitionSchema = z
  .object({
    nodes: z.array(NodeSchema).max(500),
    connections: z.array(ConnectionSchema).max(2000).default([]),
  })
  .strict()
  .openapi("PipelineDefinition");

export type PipelineNode = z.infer<typeof NodeSchema>;
export type Connection = z.infer<typeof ConnectionSchema>;
export type Definition = z.infer<typeof DefinitionSchema>;
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;

/** Stable text of a definition, to tell whether a save changed it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
