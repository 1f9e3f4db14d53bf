// Data nodes: reshape JSON (JSONata transform, set fields, filter), evaluate
// FHIRPath and check JSON Schema. Pure functions of their input and config.
import { Validator } from "@cfworker/json-schema";
import { z } from "zod";
import { evaluateBudgeted as evaluateFhirPath, fhirpathSyntaxError } from "../../fhir";
import { BUDGET_EXCEEDED, ExpressionBudgetExceeded, stepBudget } from "../../../platform/step-budget";
import { isPrototypeKey, ownProperty } from "../../../platform/object-keys";
import { NodeFailure } from "../node-failure";
import { defineNode, type PortDef } from "../node-type";
import { evaluate, jsonataExpression, test } from "./expression";

const IN: PortDef[] = [{ name: "input", type: "json", description: "The upstream node's output; `$` in expressions" }];
const OUT: PortDef[] = [{ name: "output", type: "json", description: "The result, passed on to the next node" }];

export const transform = defineNode({
  id: "data.transform",
  name: "Transform (JSONata)",
  category: "data",
  description: "Reshapes the input with a JSONata expression, like Mirth's transformer or n8n's Code node without code.",
  keywords: ["jsonata", "map", "transform", "reshape", "mapping", "expression"],
  inputs: IN,
  outputs: OUT,
  config: z.object({ expression: jsonataExpression("the output, computed from the input ($ is the input)") }).strict(),
  documentation: {
    summary: "The execution id and org id are bound as $execution_id and $org_id.",
    example: {
      config: { expression: '{"name": name.given[0] & " " & name.family}' },
      inputs: { input: { name: { given: ["Ada"], family: "Lovelace" } } },
      outputs: { output: { name: "Ada Lovelace" } },
    },
  },
  run: async ({ config, inputs, executionId, orgId }) => ({
    outputs: { output: await evaluate(config.expression, inputs.input, { execution_id: executionId, org_id: orgId }) },
  }),
});

export const filter = defineNode({
  id: "data.filter",
  name: "Filter",
  category: "data",
  description: "Keeps array items (or a single value) for which a JSONata predicate is true; the rest go to dropped.",
  keywords: ["filter", "where", "select", "predicate", "drop"],
  inputs: IN,
  outputs: [
    { name: "kept", type: "json" },
    { name: "dropped", type: "json" },
  ],
  config: z.object({ predicate: jsonataExpression("evaluated per item") }).strict(),
  documentation: {
    summary: "An array input emits both ports (arrays, possibly empty); a single value emits exactly one port.",
    example: { config: { predicate: "status = 'final'" }, inputs: { input: [{ status: "final" }, { status: "draft" }] }, outputs: { kept: [{ status: "final" }], dropped: [{ status: "draft" }] } },
  },
  run: async ({ config, inputs }) => {
    const value = inputs.input;
    if (!Array.isArray(value)) return { outputs: { [(await test(config.predicate, value)) ? "kept" : "dropped"]: value } };
    const kept: unknown[] = [];
    const dropped: unknown[] = [];
    for (const item of value) ((await test(config.predicate, item)) ? kept : dropped).push(item);
    return { outputs: { kept, dropped } };
  },
});

export const setFields = defineNode({
  id: "data.set_fields",
  name: "Set fields",
  category: "data",
  description: "Sets or overwrites fields of the input object: each value is a JSONata expression over the input.",
  keywords: ["set", "assign", "field", "edit", "add property"],
  inputs: IN,
  outputs: OUT,
  config: z
    .object({
      fields: z.record(
        z
          .string()
          .regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/, "dotted path")
          .refine((path) => !path.split(".").some(isPrototypeKey), "__proto__, prototype and constructor are not field names"),
        jsonataExpression("value of the field"),
      ),
      keep_others: z.boolean().default(true),
    })
    .strict(),
  documentation: {
    summary: "Dotted keys create nested objects.",
    example: { config: { fields: { "meta.source": "'lab'" } }, inputs: { input: { a: 1 } }, outputs: { output: { a: 1, meta: { source: "lab" } } } },
  },
  run: async ({ config, inputs }) => {
    const source = inputs.input && typeof inputs.input === "object" ? inputs.input : {};
    const result: Record<string, unknown> = config.keep_others ? structuredClone(source as Record<string, unknown>) : {};
    for (const [path, expr] of Object.entries(config.fields)) {
      const keys = path.split(".");
      if (keys.some(isPrototypeKey)) throw new NodeFailure("FIELD_NOT_ALLOWED", `Field ${path} is not allowed`);
      let target = result;
      for (const key of keys.slice(0, -1)) {
        const next = ownProperty(target, key);
        if (!next || typeof next !== "object") target[key] = {};
        target = target[key] as Record<string, unknown>;
      }
      target[keys[keys.length - 1] as string] = await evaluate(expr, inputs.input);
    }
    return { outputs: { output: result } };
  },
});


export const fhirpathEvaluate = defineNode({
  id: "data.fhirpath",
  name: "FHIRPath evaluate",
  category: "data",
  description: "Evaluates a FHIRPath expression (R4 model) on a resource or bundle and emits the result collection.",
  keywords: ["fhirpath", "fhir", "path", "query", "extract", "expression"],
  inputs: [{ name: "resource", type: "json", description: "The FHIR resource (or any JSON) the expression is evaluated on" }],
  outputs: [
    { name: "result", type: "json", description: "The result collection (array)" },
    { name: "empty", type: "json", description: "Emitted with the input instead when the result is empty" },
  ],
  config: z
    .object({
      expression: z
        .string()
        .min(1)
        .superRefine((v, ctx) => {
          const error = fhirpathSyntaxError(v);
          if (error) ctx.addIssue({ code: "custom", message: `Invalid FHIRPath: ${error}` });
        }),
    })
    .strict(),
  documentation: {
    summary: "Uses the FHIR store's own FHIRPath engine (R4 model), so choice types and type tests work as in search.",
    example: { config: { expression: "Patient.name.given.first()" }, inputs: { resource: { resourceType: "Patient", name: [{ given: ["Ada"] }] } }, outputs: { result: ["Ada"] } },
  },
  run: async ({ config, inputs }) => {
    let result: unknown[];
    const budget = await stepBudget();
    try {
      result = evaluateFhirPath(config.expression, inputs.resource, budget);
    } catch (e) {
      if (e instanceof ExpressionBudgetExceeded) {
        throw new NodeFailure(BUDGET_EXCEEDED, `FHIRPath "${config.expression}" stopped: ${e.message}`, { limit: e.limit, unit: e.unit });
      }
      throw new NodeFailure("FHIRPATH_FAILED", e instanceof Error ? e.message : String(e));
    }
    return { outputs: result.length ? { result } : { empty: inputs.resource } };
  },
});

export const jsonSchemaValidate = defineNode({
  id: "data.json_schema_validate",
  name: "JSON Schema validate",
  category: "data",
  description: "Checks the input against a JSON Schema (draft 2020-12, 2019-09, 7 or 4); routes to valid or invalid.",
  keywords: ["json schema", "validate", "schema", "check", "contract"],
  inputs: IN,
  outputs: [
    { name: "valid", type: "json" },
    { name: "invalid", type: "json", description: "{input, errors[]}" },
  ],
  config: z
    .object({
      schema: z.record(z.string(), z.unknown()).describe("The JSON Schema"),
      draft: z.enum(["4", "7", "2019-09", "2020-12"]).default("2020-12"),
    })
    .strict(),
  validateConfig: (config) => {
    try {
      new Validator(config.schema as object, config.draft);
      return [];
    } catch (e) {
      return [{ path: "schema", message: e instanceof Error ? e.message : String(e) }];
    }
  },
  documentation: {
    summary: "Runs without code generation, so it works inside Workers.",
    example: { config: { schema: { type: "object", required: ["id"] } }, inputs: { input: {} }, outputs: { invalid: { input: {}, errors: [{ instance_location: "#", error: 'Instance does not have required property "id".' }] } } },
  },
  run: async ({ config, inputs }) => {
    const result = new Validator(config.schema as object, config.draft, false).validate(inputs.input);
    if (result.valid) return { outputs: { valid: inputs.input } };
    const errors = result.errors.map((e) => ({ instance_location: e.instanceLocation, keyword: e.keyword, error: e.error }));
    return { outputs: { invalid: { input: inputs.input, errors } } };
  },
});
