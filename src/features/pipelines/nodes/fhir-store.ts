// Healthcare nodes over the organization's FHIR store: read, search, create,
// update, conditional upsert and validate. In test mode the writes report what
// they would have written and touch nothing.
import { z } from "zod";
import type { Resource } from "../../fhir";
import { defineNode, type NodeContext } from "../node-type";
import { evaluate, jsonataExpression } from "./expression";
import { asResource, RESOURCE_TYPE } from "./fhir-resource";

const RESOURCE_IN = [{ name: "resource", type: "fhir-resource" }];
const RESOURCE_OUT = [{ name: "resource", type: "fhir-resource" }];
const resourceType = z.string().regex(RESOURCE_TYPE, "a FHIR resource type, e.g. Patient");

/** A value taken from the config, or computed by a JSONata expression over the input. */
async function pick(literal: string | undefined, expression: string | undefined, input: unknown, what: string) {
  if (literal) return literal;
  const value = expression ? await evaluate(expression, input) : undefined;
  if (typeof value !== "string" || !value) throw new Error(`No ${what}: set it in the config or make the expression yield a string`);
  return value;
}

export const fhirRead = defineNode({
  id: "fhir.read",
  name: "FHIR read",
  category: "healthcare",
  description: "Reads one resource by type and id from the organization's FHIR store.",
  keywords: ["fhir", "read", "get", "resource", "lookup"],
  inputs: [{ name: "input", type: "json" }],
  outputs: RESOURCE_OUT,
  config: z
    .object({
      resource_type: resourceType,
      id: z.string().optional(),
      id_expression: jsonataExpression("yields the id from the input").optional(),
    })
    .strict(),
  documentation: {
    summary: "Give a fixed id or an id_expression over the input (e.g. patient_id).",
    example: { config: { resource_type: "Patient", id_expression: "patient_id" }, inputs: { input: { patient_id: "p1" } }, outputs: { resource: { resourceType: "Patient", id: "p1" } } },
  },
  run: async ({ config, inputs, services }) => {
    const id = await pick(config.id, config.id_expression, inputs.input, "id");
    return { outputs: { resource: await services.fhir().read(config.resource_type, id) } };
  },
});

export const fhirSearch = defineNode({
  id: "fhir.search",
  name: "FHIR search",
  category: "healthcare",
  description: "Searches the organization's FHIR store and emits the searchset Bundle.",
  keywords: ["fhir", "search", "query", "find", "bundle"],
  inputs: [{ name: "input", type: "json" }],
  outputs: [{ name: "bundle", type: "fhir-bundle" }],
  config: z
    .object({
      resource_type: resourceType,
      query: z.string().default("").describe("FHIR search query string, e.g. family=smith&_count=10"),
      query_expression: jsonataExpression("yields the query string from the input").optional(),
    })
    .strict(),
  documentation: {
    summary: "query_expression wins over query when both are set.",
    example: { config: { resource_type: "Observation", query_expression: '"subject=Patient/" & patient_id' }, outputs: { bundle: { resourceType: "Bundle", type: "searchset", entry: [] } } },
  },
  run: async ({ config, inputs, services }) => {
    const query = config.query_expression ? String((await evaluate(config.query_expression, inputs.input)) ?? "") : config.query;
    return { outputs: { bundle: await services.fhir().search(config.resource_type, query) } };
  },
});

/** Writes through the store, or in test mode records the write and echoes the resource. */
async function write(ctx: NodeContext<unknown>, action: string, resource: Resource, perform: () => Promise<{ resource: Resource; outcome: string }>) {
  if (ctx.testMode) {
    ctx.wouldWrite(`fhir:${action}`, resource);
    ctx.log("info", `Test mode: would ${action} ${resource.resourceType}${resource.id ? `/${resource.id}` : ""}`);
    return { outputs: { resource, outcome: "not-written (test mode)" } };
  }
  const result = await perform();
  ctx.log("info", `${result.outcome} ${result.resource.resourceType}/${result.resource.id}`);
  return { outputs: { resource: result.resource, outcome: result.outcome } };
}

const WRITE_OUT = [...RESOURCE_OUT, { name: "outcome", type: "text" }];

export const fhirCreate = defineNode({
  id: "fhir.create",
  name: "FHIR create",
  category: "healthcare",
  description: "Creates the incoming resource in the FHIR store (optionally only if none matches a query).",
  keywords: ["fhir", "create", "insert", "write", "post"],
  inputs: RESOURCE_IN,
  outputs: WRITE_OUT,
  config: z.object({ if_none_exist: z.string().optional().describe("Conditional create query, e.g. identifier=sys|123") }).strict(),
  documentation: {
    summary: "Emits the stored resource (with id and meta) and the outcome created or existing.",
    example: { config: {}, inputs: { resource: { resourceType: "Patient" } }, outputs: { resource: { resourceType: "Patient", id: "generated" }, outcome: "created" } },
  },
  run: async (ctx) => {
    const resource = asResource(ctx.inputs.resource);
    const ifNoneExist = ctx.config.if_none_exist;
    return write(ctx, "create", resource, () => ctx.services.fhir().create(resource, ifNoneExist ? { ifNoneExist } : undefined));
  },
});

export const fhirUpdate = defineNode({
  id: "fhir.update",
  name: "FHIR update",
  category: "healthcare",
  description: "Updates (or creates at its id) the incoming resource, which must carry an id.",
  keywords: ["fhir", "update", "put", "write", "replace"],
  inputs: RESOURCE_IN,
  outputs: WRITE_OUT,
  config: z.object({}).strict(),
  documentation: {
    summary: "Create-on-update is allowed, as the FHIR store permits.",
    example: { config: {}, inputs: { resource: { resourceType: "Patient", id: "p1" } }, outputs: { outcome: "updated" } },
  },
  run: async (ctx) => {
    const resource = asResource(ctx.inputs.resource);
    if (!resource.id) throw new Error("FHIR update needs a resource with an id");
    return write(ctx, "update", resource, () => ctx.services.fhir().update(resource as Resource & { id: string }));
  },
});

export const fhirUpsert = defineNode({
  id: "fhir.upsert",
  name: "FHIR conditional upsert",
  category: "healthcare",
  description: "Conditional update: updates the resource matching a query (e.g. by identifier) or creates it.",
  keywords: ["fhir", "upsert", "conditional update", "merge", "identifier", "dedupe"],
  inputs: RESOURCE_IN,
  outputs: WRITE_OUT,
  config: z
    .object({
      query: z.string().optional().describe("Fixed match query"),
      query_expression: jsonataExpression("yields the match query from the resource").optional(),
    })
    .strict()
    .refine((c) => c.query || c.query_expression, "Set query or query_expression"),
  documentation: {
    summary: "The usual way to load data idempotently: match on a business identifier.",
    example: {
      config: { query_expression: '"identifier=" & identifier[0].system & "|" & identifier[0].value' },
      inputs: { resource: { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "42" }] } },
      outputs: { outcome: "created" },
    },
  },
  run: async (ctx) => {
    const resource = asResource(ctx.inputs.resource);
    const query = await pick(ctx.config.query, ctx.config.query_expression, resource, "match query");
    return write(ctx, `upsert?${query}`, resource, () => ctx.services.fhir().conditionalUpdate(query, resource));
  },
});

export const fhirValidate = defineNode({
  id: "fhir.validate",
  name: "FHIR validate",
  category: "healthcare",
  description: "Validates a resource with the FHIR store's validator and routes it to valid or invalid with the OperationOutcome.",
  keywords: ["fhir", "validate", "profile", "conformance", "operationoutcome"],
  inputs: RESOURCE_IN,
  outputs: [
    { name: "valid", type: "fhir-resource" },
    { name: "invalid", type: "json", description: "{resource, outcome}" },
  ],
  config: z.object({ fail_on_warning: z.boolean().default(false) }).strict(),
  documentation: {
    summary: "Errors and fatal issues make a resource invalid; warnings too when fail_on_warning is set.",
    example: { config: {}, inputs: { resource: { resourceType: "Patient", gender: "x" } }, outputs: { invalid: { outcome: { resourceType: "OperationOutcome" } } } },
  },
  run: async ({ config, inputs, services }) => {
    const resource = asResource(inputs.resource);
    const outcome = await services.validateResource(resource);
    const bad = new Set(config.fail_on_warning ? ["fatal", "error", "warning"] : ["fatal", "error"]);
    const invalid = outcome.issue.some((i) => bad.has(i.severity));
    return { outputs: invalid ? { invalid: { resource, outcome } } : { valid: resource } };
  },
});
