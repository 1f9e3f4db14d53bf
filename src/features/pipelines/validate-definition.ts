// Checks a definition against the node catalog before it is saved: known types,
// known ports, compatible port types, no cycles, every node reachable from a
// trigger, and each node's config against its schema. Errors name the node.
// Given the outbound policy, static destinations (an HTTP node's url) are checked too.
import { validationFailed, type FieldError } from "../../platform/errors";
import { zodDetails } from "../../platform/http/router";
import { checkUrl, destinationNotAllowed, type OutboundPolicy } from "../../platform/outbound/policy";
import { type Definition, DefinitionSchema, type PipelineNode } from "./definition";
import type { NodeType } from "./node-type";
import { portsCompatible } from "./port-compatibility";

export { portsCompatible };
import { type NodeRegistry, outputPorts } from "./registry";

export interface CheckedDefinition {
  definition: Definition;
  /** Parsed config per node id (defaults applied). */
  configs: Map<string, unknown>;
}

/** Throws VALIDATION_FAILED, or DESTINATION_NOT_ALLOWED when `policy` refuses a node's static destination. */
export function checkDefinition(raw: unknown, registry: NodeRegistry, policy?: OutboundPolicy): CheckedDefinition {
  const parsed = DefinitionSchema.safeParse(raw);
  if (!parsed.success) {
    throw validationFailed(
      "Invalid pipeline definition",
      zodDetails(parsed.error).map((d) => ({ path: `definition.${d.path}`, message: d.message })),
    );
  }
  const { errors, refused, configs } = checkGraph(parsed.data, registry, "", policy);
  if (errors.length) throw validationFailed("Invalid pipeline definition", errors);
  if (refused.length) throw destinationNotAllowed((refused[0] as FieldError).message, refused);
  return { definition: parsed.data, configs };
}

function checkGraph(def: Definition, registry: NodeRegistry, prefix: string, policy: OutboundPolicy | undefined) {
  const errors: FieldError[] = [];
  const refused: FieldError[] = [];
  const err = (path: string, message: string) => errors.push({ path: `${prefix}${path}`, message });
  const nodes = new Map<string, { node: PipelineNode; type?: NodeType<unknown>; config?: unknown }>();
  const configs = new Map<string, unknown>();

  def.nodes.forEach((node) => {
    if (nodes.has(node.id)) err(`nodes.${node.id}`, `Duplicate node id ${node.id}`);
    const type = registry.get(node.type);
    if (!type) {
      err(`nodes.${node.id}.type`, `Unknown node type ${node.type}`);
      nodes.set(node.id, { node });
      return;
    }
    const cfg = type.config.safeParse(node.config);
    if (!cfg.success) {
      for (const d of zodDetails(cfg.error)) err(`nodes.${node.id}.config.${d.path}`, d.message);
      nodes.set(node.id, { node, type });
      return;
    }
    for (const d of type.validateConfig?.(cfg.data) ?? []) err(`nodes.${node.id}.config.${d.path}`, d.message);
    if (policy) {
      for (const d of type.destinations?.(cfg.data) ?? []) {
        const verdict = checkUrl(d.url, policy);
        if (!verdict.ok) refused.push({ path: `${prefix}nodes.${node.id}.config.${d.path}`, message: verdict.reason });
      }
    }
    for (const nested of type.nestedDefinitions?.(cfg.data) ?? []) {
      const inner = checkGraph(DefinitionSchema.parse(nested.definition), registry, `${prefix}nodes.${node.id}.config.${nested.path}.`, policy);
      errors.push(...inner.errors);
      refused.push(...inner.refused);
    }
    configs.set(node.id, cfg.data);
    nodes.set(node.id, { node, type, config: cfg.data });
  });

  const outgoing = new Map<string, string[]>();
  def.connections.forEach((c, i) => {
    const from = nodes.get(c.from.node);
    const to = nodes.get(c.to.node);
    const at = `connections.${i}`;
    if (!from) err(`${at}.from.node`, `Unknown node ${c.from.node}`);
    if (!to) err(`${at}.to.node`, `Unknown node ${c.to.node}`);
    if (!from || !to) return;
    outgoing.set(c.from.node, [...(outgoing.get(c.from.node) ?? []), c.to.node]);
    if (!from.type || !to.type || from.config === undefined) return;
    const out = outputPorts(from.type, from.config).find((p) => p.name === c.from.port);
    const inp = to.type.inputs.find((p) => p.name === c.to.port);
    if (!out) err(`nodes.${c.from.node}`, `Node ${c.from.node} (${from.type.id}) has no output port ${c.from.port}`);
    if (!inp) err(`nodes.${c.to.node}`, `Node ${c.to.node} (${to.type.id}) has no input port ${c.to.port}`);
    if (out && inp && !portsCompatible(out.type, inp.type)) {
      err(`nodes.${c.to.node}`, `Port type mismatch: ${c.from.node}.${out.name} (${out.type}) -> ${c.to.node}.${inp.name} (${inp.type})`);
    }
    if (out?.name === "error" && from.node.on_error !== "route") {
      err(`nodes.${c.from.node}.on_error`, `Node ${c.from.node} connects its error port, so on_error must be "route"`);
    }
  });

  const cycle = findCycle([...nodes.keys()], outgoing);
  if (cycle) err(`nodes.${cycle[0]}`, `Cycle: ${cycle.join(" -> ")}`);

  const triggers = [...nodes.values()].filter((n) => n.type?.trigger).map((n) => n.node.id);
  if (def.nodes.length && !triggers.length) err("nodes", "A pipeline needs at least one trigger node (e.g. control.manual_trigger)");
  const reached = new Set<string>();
  const stack = [...triggers];
  while (stack.length) {
    const id = stack.pop() as string;
    if (reached.has(id)) continue;
    reached.add(id);
    stack.push(...(outgoing.get(id) ?? []));
  }
  if (triggers.length) {
    for (const id of nodes.keys()) if (!reached.has(id)) err(`nodes.${id}`, `Node ${id} is unreachable from any trigger`);
  }
  return { errors, refused, configs };
}

function findCycle(ids: string[], outgoing: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 1 | 2>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 2) return undefined;
    if (state.get(id) === 1) return [...path.slice(path.indexOf(id)), id];
    state.set(id, 1);
    path.push(id);
    for (const next of outgoing.get(id) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(id, 2);
    return undefined;
  };
  for (const id of ids) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}
