// configure/node and auto-configure/pipeline: fill a node's configuration from its
// config_schema and the organization's context, without a model. Each filled field says
// where its value came from, so the engineer can review it; what cannot be filled is listed.
import { zodDetails } from "../../platform/http/router";
import { configJsonSchema, type Definition, type NodeRegistry, type NodeType } from "../pipelines";
import { isUnfilled } from "./lint";

interface PropertySchema {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  description?: string;
}

export interface ConnectorRef {
  id: string;
  name: string;
  type: string;
}

export interface ConfigureContext {
  connectors: ConnectorRef[];
}

export interface FilledField {
  field: string;
  value: unknown;
  /** default (the schema's), connector (the org's only fitting connector), enum (its first value), example (the catalog's documented example) */
  source: "default" | "connector" | "enum" | "example";
}

export interface NodeConfiguration {
  node_type: string;
  config: Record<string, unknown>;
  filled: FilledField[];
  /** Fields still needing a value the copilot cannot know (a URL, a query, an expression...). */
  missing: string[];
  valid: boolean;
  errors: { path: string; message: string }[];
}

/** Connectors a field may name: those whose type its description mentions, else all of them. */
function fittingConnectors(prop: PropertySchema, ctx: ConfigureContext): ConnectorRef[] {
  const text = (prop.description ?? "").toLowerCase();
  const named = ctx.connectors.filter((c) => text.includes(c.type.toLowerCase()));
  return named.length ? named : ctx.connectors;
}


function valueFor(field: string, prop: PropertySchema, type: NodeType<unknown>, ctx: ConfigureContext): FilledField | undefined {
  if (/connector/.test(field)) {
    const fit = fittingConnectors(prop, ctx);
    return fit.length === 1 ? { field, value: (fit[0] as ConnectorRef).id, source: "connector" } : undefined;
  }
  if (prop.enum?.length) return { field, value: prop.enum[0], source: "enum" };
  const example = type.documentation.example.config[field];
  // Example strings (URLs, queries, expressions) are about the example's data, never the caller's: only numbers, flags and structures are taken.
  if (example !== undefined && typeof example !== "string") return { field, value: example, source: "example" };
  return undefined;
}

export function configureNode(type: NodeType<unknown>, partial: Record<string, unknown>, ctx: ConfigureContext): NodeConfiguration {
  const schema = configJsonSchema(type) as { properties?: Record<string, PropertySchema>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const config: Record<string, unknown> = { ...partial };
  const filled: FilledField[] = [];
  for (const [field, prop] of Object.entries(schema.properties ?? {})) {
    if (!isUnfilled(config[field])) continue;
    if (prop.default !== undefined) {
      if (required.has(field) || field in config) {
        config[field] = prop.default;
        filled.push({ field, value: prop.default, source: "default" });
      }
      continue;
    }
    // Optional fields stay unset unless they name a connector the node then uses.
    if (!required.has(field) && !/connector/.test(field)) continue;
    const found = valueFor(field, prop, type, ctx);
    if (found) {
      config[field] = found.value;
      filled.push(found);
    } else if (field in config && isUnfilled(config[field])) delete config[field];
  }
  const parsed = type.config.safeParse(config);
  const errors = parsed.success ? [] : zodDetails(parsed.error);
  const missing = [...required].filter((f) => isUnfilled(config[f]));
  return { node_type: type.id, config, filled, missing, valid: parsed.success && !missing.length, errors };
}

export interface AutoConfigured {
  definition: Definition;
  changes: ({ node_id: string } & FilledField)[];
  unresolved: { node_id: string; missing: string[]; errors: { path: string; message: string }[] }[];
}

/** Configures every node whose configuration does not parse or leaves a required field unfilled. */
export function autoConfigure(def: Definition, registry: NodeRegistry, ctx: ConfigureContext): AutoConfigured {
  const changes: AutoConfigured["changes"] = [];
  const unresolved: AutoConfigured["unresolved"] = [];
  const nodes = def.nodes.map((node) => {
    const type = registry.get(node.type);
    if (!type) return node;
    const before = configureNode(type, node.config, { connectors: [] });
    if (before.valid && !before.filled.some((f) => f.source !== "default")) return node;
    const result = configureNode(type, node.config, ctx);
    changes.push(...result.filled.map((f) => ({ node_id: node.id, ...f })));
    if (!result.valid) unresolved.push({ node_id: node.id, missing: result.missing, errors: result.errors });
    return { ...node, config: result.config };
  });
  return { definition: { ...def, nodes }, changes, unresolved };
}
