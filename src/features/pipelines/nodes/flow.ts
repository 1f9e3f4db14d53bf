// Control-flow nodes: branch (condition, switch), iterate (for-each), join
// (merge) and wait (delay). Untaken branches are ports left unemitted.
import { z } from "zod";
import { DefinitionSchema, NOT_PROTOTYPE_KEY } from "../definition";
import { NodeFailure } from "../node-failure";
import { defineNode, type PortDef } from "../node-type";
import { evaluate, jsonataExpression, test } from "./expression";

const IN: PortDef[] = [{ name: "input", type: "json", description: "The upstream node's output" }];

export const condition = defineNode({
  id: "control.condition",
  name: "Condition (if)",
  category: "control",
  description: "Sends the input to the true or the false port depending on a JSONata test.",
  keywords: ["if", "branch", "condition", "boolean", "route"],
  inputs: IN,
  outputs: [
    { name: "true", type: "json" },
    { name: "false", type: "json" },
  ],
  config: z.object({ expression: jsonataExpression("evaluated against the input; truthy → true port") }).strict(),
  documentation: {
    summary: "Nodes connected only to the untaken port are skipped.",
    example: { config: { expression: "age >= 18" }, inputs: { input: { age: 40 } }, outputs: { true: { age: 40 } } },
  },
  run: async ({ config, inputs }) => {
    const passed = await test(config.expression, inputs.input);
    return { outputs: { [passed ? "true" : "false"]: inputs.input } };
  },
});

const SwitchConfig = z
  .object({
    cases: z
      .array(
        z.object({
          port: z
            .string()
            .regex(/^[a-z][a-z0-9_]{0,31}$/, "lowercase port name")
            .refine(...NOT_PROTOTYPE_KEY),
          expression: jsonataExpression("a truthy result selects this case"),
        }),
      )
      .min(1)
      .max(20),
    /** first: only the first matching case; all: every matching case. */
    mode: z.enum(["first", "all"]).default("first"),
  })
  .strict();

export const switchNode = defineNode({
  id: "control.switch",
  name: "Switch",
  category: "control",
  description: "Routes the input to the port of the first (or every) matching case, else to default.",
  keywords: ["switch", "case", "route", "branch", "router"],
  inputs: IN,
  outputs: [{ name: "default", type: "json" }],
  outputsFor: (config: z.infer<typeof SwitchConfig>) => [
    ...config.cases.map((c) => ({ name: c.port, type: "json" as const })),
    { name: "default", type: "json" as const },
  ],
  config: SwitchConfig,
  validateConfig: (config) => {
    const names = config.cases.map((c) => c.port);
    return names
      .filter((n, i) => names.indexOf(n) !== i || n === "default" || n === "error")
      .map((n) => ({ path: "cases", message: `Case port ${n} is reserved or repeated` }));
  },
  documentation: {
    summary: "Like Mirth's destination filters: one input, many outputs, each with its own rule.",
    example: {
      config: { cases: [{ port: "adt", expression: "type = 'ADT'" }, { port: "oru", expression: "type = 'ORU'" }] },
      inputs: { input: { type: "ORU" } },
      outputs: { oru: { type: "ORU" } },
    },
  },
  run: async ({ config, inputs }) => {
    const outputs: Record<string, unknown> = {};
    for (const c of config.cases) {
      if (await test(c.expression, inputs.input)) {
        outputs[c.port] = inputs.input;
        if (config.mode === "first") break;
      }
    }
    if (!Object.keys(outputs).length) outputs.default = inputs.input;
    return { outputs };
  },
});

const ForEachConfig = z
  .object({
    items: jsonataExpression("selects the array to iterate; default the input itself").optional(),
    body: DefinitionSchema.describe("A pipeline definition run once per item; its trigger receives the item"),
    max_items: z.number().int().min(1).max(10_000).default(1000),
  })
  .strict();

export const forEach = defineNode({
  id: "control.for_each",
  name: "For each",
  category: "control",
  description: "Runs a nested sub-pipeline once per array item and collects the results in order.",
  keywords: ["loop", "for each", "iterate", "map", "array", "batch"],
  inputs: IN,
  outputs: [
    { name: "results", type: "json", description: "Array of each item's body outputs" },
    { name: "empty", type: "json", description: "Emitted instead when there are no items" },
  ],
  config: ForEachConfig,
  nestedDefinitions: (config) => [{ path: "body", definition: config.body }],
  documentation: {
    summary: "The body is a full definition (trigger, nodes, connections) validated on save like the pipeline itself.",
    example: {
      config: {
        items: "entry.resource",
        body: {
          nodes: [
            { id: "item", type: "control.manual_trigger", config: {} },
            { id: "name", type: "data.transform", config: { expression: "resourceType" } },
          ],
          connections: [{ from: { node: "item", port: "event" }, to: { node: "name", port: "input" } }],
        },
      },
      outputs: { results: [{ name: { output: "Patient" } }] },
    },
  },
  run: async (ctx) => {
    const raw = ctx.config.items ? await evaluate(ctx.config.items, ctx.inputs.input) : ctx.inputs.input;
    const items = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (items.length > ctx.config.max_items) {
      throw new NodeFailure("TOO_MANY_ITEMS", `${items.length} items exceed max_items ${ctx.config.max_items}`);
    }
    if (!items.length) return { outputs: { empty: ctx.inputs.input } };
    const results: unknown[] = [];
    for (const item of items) results.push((await ctx.runBody(ctx.config.body, item)).outputs);
    ctx.log("info", `Ran the body for ${items.length} items`);
    return { outputs: { results } };
  },
});

export const merge = defineNode({
  id: "control.merge",
  name: "Merge",
  category: "control",
  description: "Joins branches: waits for every upstream node, then combines what arrived (untaken branches are left out).",
  keywords: ["merge", "join", "combine", "fan-in", "zip"],
  inputs: [{ name: "inputs", type: "any", multiple: true }],
  outputs: [{ name: "output", type: "json" }],
  config: z
    .object({ mode: z.enum(["array", "object"]).default("array").describe("array: list of values; object: shallow merge of objects") })
    .strict(),
  documentation: {
    summary: "Connect any number of branches to the inputs port.",
    example: { config: { mode: "object" }, inputs: { inputs: [{ a: 1 }, { b: 2 }] }, outputs: { output: { a: 1, b: 2 } } },
  },
  run: async ({ config, inputs }) => {
    const values = (inputs.inputs as unknown[]) ?? [];
    if (config.mode === "array") return { outputs: { output: values } };
    // fromEntries, not Object.assign: a "__proto__" member is merged as data, never as a prototype.
    const objects = values.filter((v): v is object => !!v && typeof v === "object");
    return { outputs: { output: Object.fromEntries(objects.flatMap((v) => Object.entries(v))) } };
  },
});

export const delay = defineNode({
  id: "control.delay",
  name: "Delay",
  category: "control",
  description: "Waits, then passes the input on. Long waits in async executions survive restarts (a Durable Object alarm).",
  keywords: ["delay", "wait", "sleep", "pause", "timer"],
  inputs: IN,
  outputs: [{ name: "output", type: "json" }],
  config: z.object({ ms: z.number().int().min(0).max(7 * 24 * 3600 * 1000) }).strict(),
  documentation: {
    summary: "Synchronous executions wait inline up to 30 s; longer delays need async: true.",
    example: { config: { ms: 1000 }, inputs: { input: { a: 1 } }, outputs: { output: { a: 1 } } },
  },
  run: async (ctx) => {
    if (ctx.resumed || ctx.config.ms === 0) return { outputs: { output: ctx.inputs.input } };
    return { waitUntil: Date.now() + ctx.config.ms };
  },
});
