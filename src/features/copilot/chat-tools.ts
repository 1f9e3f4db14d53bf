// The tools the copilot's chat may call: search the node catalog, read a node's schema,
// validate a definition, propose a definition (validated: only a valid one becomes the chat's
// pipeline), search the organization's FHIR data (read only) and execute a stored pipeline in
// test_mode. FHIR and execution act as the caller's key and need its permissions.
import { z } from "zod";
import type { AgentTool } from "../agents";
import type { FhirPort } from "../fhir";
import { configJsonSchema, DefinitionSchema, type NodeRegistry } from "../pipelines";
import type { ValidationReport } from "./findings";

export interface ChatToolDeps {
  registry: NodeRegistry;
  validate(definition: unknown): ValidationReport;
  /** Undefined when the key may not read FHIR data. */
  fhir?: FhirPort;
  /** Undefined when the key may not execute pipelines. */
  executeTest?: (pipelineId: string, inputs: Record<string, unknown>) => Promise<unknown>;
  /** Called with each valid proposed pipeline. */
  onProposal(pipeline: { name: string; definition: unknown }, report: ValidationReport): void;
  /** Called with each validation the chat ran. */
  onValidation(report: ValidationReport): void;
  /** Wraps one tool run, so the events it reports are told apart from other calls'. */
  track(tool: string, run: () => void): void;
}

const MAX_CATALOG_HITS = 10;
const MAX_FHIR_RESULTS = 10;

const definitionInput = z.object({ nodes: z.array(z.record(z.string(), z.unknown())), connections: z.array(z.record(z.string(), z.unknown())).default([]) });

export function copilotTools(d: ChatToolDeps): AgentTool[] {
  const tools: AgentTool[] = [
    {
      name: "search_node_catalog",
      description: "Find pipeline node types by words (name, description, keywords). Returns id, name, category, description.",
      input: { zod: z.object({ query: z.string().min(1).max(200) }) },
      execute: async (args) => {
        const { query } = args as { query: string };
        const hits = d.registry.search(query);
        const found = hits.length ? hits : d.registry.all().filter((n) => query.toLowerCase().split(/\s+/).some((w) => w && `${n.id} ${n.keywords.join(" ")}`.toLowerCase().includes(w)));
        return found.slice(0, MAX_CATALOG_HITS).map((n) => ({ id: n.id, name: n.name, category: n.category, description: n.description }));
      },
    },
    {
      name: "get_node_schema",
      description: "A node type's ports (with types), configuration JSON Schema and documented example.",
      input: { zod: z.object({ node_type: z.string().min(1).max(100) }) },
      execute: async (args) => {
        const type = d.registry.get((args as { node_type: string }).node_type);
        if (!type) return { error: `No node type ${(args as { node_type: string }).node_type}; use search_node_catalog` };
        return { id: type.id, inputs: type.inputs, outputs: type.outputs, config_schema: configJsonSchema(type), documentation: type.documentation };
      },
    },
    {
      name: "validate_pipeline",
      description: "Validate a pipeline definition with the service's validator: errors and warnings by node.",
      input: { zod: z.object({ definition: definitionInput }) },
      execute: async (args) => {
        const report = d.validate((args as { definition: unknown }).definition);
        d.track("validate_pipeline", () => d.onValidation(report));
        return report;
      },
    },
    {
      name: "propose_pipeline",
      description: "Hand the user the complete pipeline you designed or changed. It is validated; only a valid one is accepted, otherwise fix the errors returned and call again.",
      input: { zod: z.object({ name: z.string().min(1).max(200), definition: definitionInput }) },
      execute: async (args) => {
        const { name, definition } = args as { name: string; definition: unknown };
        const report = d.validate(definition);
        d.track("propose_pipeline", () => {
          d.onValidation(report);
          if (report.valid) d.onProposal({ name, definition: DefinitionSchema.parse(definition) }, report);
        });
        return report.valid ? { accepted: true, warnings: report.warnings } : { accepted: false, ...report };
      },
    },
  ];
  const fhir = d.fhir;
  if (fhir) {
    tools.push({
      name: "fhir_search",
      description: "Search the organization's FHIR R4 data (read only), e.g. resource_type Patient, query family=Smith&_count=5.",
      input: { zod: z.object({ resource_type: z.string().min(1).max(64), query: z.string().max(2000).default("") }) },
      execute: async (args) => {
        const { resource_type, query } = args as { resource_type: string; query: string };
        const params = new URLSearchParams(query);
        params.set("_count", String(Math.min(Number(params.get("_count")) || MAX_FHIR_RESULTS, MAX_FHIR_RESULTS)));
        const bundle = await fhir.search(resource_type, params.toString());
        return { total: bundle.total, resources: (bundle.entry ?? []).map((e) => e.resource) };
      },
    });
  }
  const executeTest = d.executeTest;
  if (executeTest) {
    tools.push({
      name: "execute_test",
      description: "Execute a stored pipeline of the organization in test_mode (no writes to the store or other systems) and see its outputs and node results.",
      input: { zod: z.object({ pipeline_id: z.string().min(1).max(100), inputs: z.record(z.string(), z.unknown()).default({}) }) },
      execute: async (args) => {
        const { pipeline_id, inputs } = args as { pipeline_id: string; inputs: Record<string, unknown> };
        return executeTest(pipeline_id, inputs);
      },
    });
  }
  return tools;
}
