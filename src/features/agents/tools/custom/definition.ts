// The shape of a custom tool: a name and JSON Schema an LLM sees, and what runs
// when it is called (an HTTP call through a connector, a deployed pipeline, or sandboxed code).
import { Validator } from "@cfworker/json-schema";
import { z } from "@hono/zod-openapi";
import { isPrototypeKey } from "../../../../platform/object-keys";
import { jsonAtMost } from "../../../../platform/http/schemas";
import { CodeConfig } from "../../../code";

/** A tool's parameter schema is sent to the model with every call: kilobytes, not megabytes. */
export const MAX_TOOL_PARAMETERS_BYTES = 64 * 1024;

export const ToolImplementationSchema = z
  .discriminatedUnion("kind", [
    z
      .object({
        kind: z.literal("http"),
        connector_id: z.string().max(100),
        method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("POST"),
        path: z.string().max(2000).default("").openapi({
            description:
              "Under the connector endpoint; a {param} placeholder (a segment or a query value, e.g. patients/{id} or search?q={q}) takes that argument; the other arguments go once to the query string (GET) or the JSON body (other methods)",
          }),
      })
      .strict(),
    z.object({ kind: z.literal("pipeline"), pipeline_id: z.string().uuid() }).strict(),
    CodeConfig.extend({ kind: z.literal("code") }).openapi({
      description:
        "Sandboxed JavaScript, as the code.javascript node runs it (docs/code.md): the module's default export is called with the arguments as input and ctx (fhir as the caller, fetch, log, secrets, hl7, x12); what it returns is the result",
    }),
  ])
  .openapi("ToolImplementation");

export const ToolBody = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and - (max 64), as LLM tool names allow")
      .refine((name) => !isPrototypeKey(name), "__proto__, prototype and constructor are reserved"),
    description: z.string().min(1).max(2000),
    parameters: z
      .record(z.string(), z.unknown())
      .superRefine(jsonAtMost(MAX_TOOL_PARAMETERS_BYTES))
      .refine((s) => s.type === "object", "A JSON Schema with type object")
      .superRefine((s, ctx) => {
        try {
          new Validator(s as object, "2020-12");
        } catch (e) {
          ctx.addIssue({ code: "custom", message: `Invalid JSON Schema: ${e instanceof Error ? e.message : String(e)}` });
        }
      }),
    implementation: ToolImplementationSchema,
  })
  .strict()
  .openapi("ToolInput");

export type ToolInput = z.infer<typeof ToolBody>;
export type ToolImplementation = z.infer<typeof ToolImplementationSchema>;

/** Argument problems against the tool's parameter schema. */
export function argumentErrors(parameters: Record<string, unknown>, args: unknown): { path: string; message: string }[] {
  const result = new Validator(parameters as object, "2020-12", false).validate(args);
  return result.errors.map((e) => ({ path: `arguments${e.instanceLocation.slice(1).replaceAll("/", ".")}`, message: e.error }));
}
