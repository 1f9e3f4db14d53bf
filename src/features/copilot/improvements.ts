// Deterministic improvements of a definition, each a whole new definition that the copilot
// turns into a stored suggestion (a JSON Patch) only when the validator accepts it: error
// routes for nodes that reach other systems, retries for nodes that fail in the recorded runs,
// configuration of unconfigured nodes.
import type { Definition, NodeRegistry, PipelineNode } from "../pipelines";
import { autoConfigure, type ConfigureContext } from "./configure";
import type { ExecutionHistory } from "./execution-history";
import { isNetworkNode } from "./lint";

export interface Improvement {
  kind: "error_route" | "retry" | "configure" | "model";
  title: string;
  rationale: string;
  definition: Definition;
}

const LOG_TYPE = "output.log";
const RETRY = { max_attempts: 3, backoff_ms: 500, backoff_factor: 2 };

function withNode(def: Definition, id: string, change: (n: PipelineNode) => PipelineNode): Definition {
  return { ...def, nodes: def.nodes.map((n) => (n.id === id ? change(n) : n)) };
}

function freeId(def: Definition, base: string): string {
  const ids = new Set(def.nodes.map((n) => n.id));
  let id = base.slice(0, 60);
  for (let i = 2; ids.has(id); i++) id = `${base.slice(0, 58)}_${i}`;
  return id;
}

export function improvements(def: Definition, registry: NodeRegistry, history: ExecutionHistory | undefined, ctx: ConfigureContext): Improvement[] {
  const out: Improvement[] = [];
  const canLog = !!registry.get(LOG_TYPE);
  for (const node of def.nodes) {
    const type = registry.get(node.type);
    if (!type) continue;
    if (isNetworkNode(type) && node.on_error !== "route" && canLog) {
      const logId = freeId(def, `${node.id}_errors`);
      const routed = withNode(def, node.id, (n) => ({ ...n, on_error: "route", retry: n.retry ?? RETRY }));
      out.push({
        kind: "error_route",
        title: `Route ${node.id}'s errors to a log node`,
        rationale: `${node.id} (${type.id}) reaches another system; without an error route one failed call stops the execution. This retries it ${RETRY.max_attempts} times and logs what still fails.`,
        definition: {
          nodes: [...routed.nodes, { id: logId, type: LOG_TYPE, config: { level: "error", message: "$string($)" }, on_error: "stop" }],
          connections: [...routed.connections, { from: { node: node.id, port: "error" }, to: { node: logId, port: "input" } }],
        },
      });
    }
    const seen = history?.nodes[node.id];
    if (seen?.failed && !node.retry && node.on_error !== "route") {
      out.push({
        kind: "retry",
        title: `Retry ${node.id} on failure`,
        rationale: `${node.id} failed in ${seen.failed} of ${seen.runs} recorded runs (${Object.keys(seen.errors).join(", ")}).`,
        definition: withNode(def, node.id, (n) => ({ ...n, retry: RETRY })),
      });
    }
  }
  const configured = autoConfigure(def, registry, ctx);
  if (configured.changes.length) {
    out.push({
      kind: "configure",
      title: "Configure unconfigured nodes",
      rationale: configured.changes.map((c) => `${c.node_id}.${c.field} = ${JSON.stringify(c.value)} (${c.source})`).join("; "),
      definition: configured.definition,
    });
  }
  return out;
}
