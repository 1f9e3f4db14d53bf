// The copilot's warnings on a definition the validator may well accept: things that run
// but are probably not what the author meant. Each names its node.
import { configJsonSchema, type Definition, type NodeRegistry, type NodeType, outputPorts, type PipelineNode } from "../pipelines";
import type { Finding } from "./findings";

interface ConfigSchema {
  properties?: Record<string, { default?: unknown }>;
  required?: string[];
}

/** A value an author left to fill in: empty, or a placeholder word. */
const PLACEHOLDER = /^\s*$|^(todo|tbd|fixme|changeme|placeholder|xxx+|\.\.\.)$|^<[^<>]+>$/i;

export function isUnfilled(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return PLACEHOLDER.test(value);
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

/** Required config fields (in the node's config_schema) that are missing, empty or a placeholder. */
export function unfilledRequired(type: NodeType<unknown>, config: Record<string, unknown>): string[] {
  const schema = configJsonSchema(type) as ConfigSchema;
  return (schema.required ?? []).filter((field) => isUnfilled(config[field]));
}

/** Nodes that reach other systems: the config names a URL or connector, or the node calls a model. */
export function isNetworkNode(type: NodeType<unknown>): boolean {
  if (type.category === "ai" || type.destinations) return true;
  const props = Object.keys((configJsonSchema(type) as ConfigSchema).properties ?? {});
  return props.some((p) => ["url", "connector_id", "connector", "endpoint", "base_url"].includes(p));
}

const WRITE_WORDS = new Set(["write", "send", "create", "update", "upsert", "delete", "post"]);
const READ_METHODS = new Set(["GET", "HEAD"]);

/** Whether the node writes to a store or another system (test mode simulates it). */
export function writes(type: NodeType<unknown>, config: Record<string, unknown>): boolean {
  if (typeof config.method === "string") return !READ_METHODS.has(config.method.toUpperCase());
  return type.keywords.some((k) => WRITE_WORDS.has(k));
}

export function lintDefinition(def: Definition, registry: NodeRegistry): Finding[] {
  const warnings: Finding[] = [];
  const warn = (node: PipelineNode, message: string, path?: string) => warnings.push({ node_id: node.id, message, ...(path ? { path } : {}) });
  const outgoing = new Map<string, Set<string>>();
  const next = new Map<string, string[]>();
  for (const c of def.connections) {
    outgoing.set(c.from.node, (outgoing.get(c.from.node) ?? new Set()).add(c.from.port));
    next.set(c.from.node, [...(next.get(c.from.node) ?? []), c.to.node]);
  }
  for (const node of def.nodes) {
    const type = registry.get(node.type);
    if (!type) continue;
    for (const field of unfilledRequired(type, node.config)) {
      warn(node, `Required field ${field} of ${type.id} is not configured (missing, empty or a placeholder)`, `nodes.${node.id}.config.${field}`);
    }
    const used = outgoing.get(node.id) ?? new Set<string>();
    const parsed = type.config.safeParse(node.config);
    const ports = parsed.success ? outputPorts(type, parsed.data).filter((p) => p.name !== "error") : [];
    if (type.trigger && used.size === 0) warn(node, `Trigger ${node.id} starts nothing: no connection leaves it`);
    else if (used.size > 0) {
      for (const port of ports) {
        if (!used.has(port.name)) warn(node, `Output port ${port.name} of ${node.id} is not connected: whatever the node emits there goes nowhere`);
      }
    }
    if (isNetworkNode(type) && node.on_error !== "route") {
      const retry = node.retry && node.retry.max_attempts > 1 ? ` (it retries ${node.retry.max_attempts} times)` : "";
      warn(node, `${node.id} (${type.id}) reaches another system but has no error route${retry}: set on_error to "route" and connect its error port`);
    }
    const after = next.get(node.id) ?? [];
    if (writes(type, node.config) && after.length) {
      warn(
        node,
        `${node.id} (${type.id}) writes, which test_mode only simulates: ${after.join(", ")} will see a simulated result in test_mode, not the system's answer`,
      );
    }
  }
  return warnings;
}
