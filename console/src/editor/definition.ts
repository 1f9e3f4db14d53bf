// A pipeline definition (the API's shape) and the canvas's nodes and edges, both ways. Positions
// are kept in the definition (node.position), so a saved layout comes back as it was.
import type { Edge, Node } from "@xyflow/react";
import type { CatalogNode } from "./catalog";

export interface DefinitionNode {
  id: string;
  type: string;
  name?: string;
  config: Record<string, unknown>;
  position?: { x: number; y: number };
  /** Test input pinned in the editor, by input port: "run from here" sends it; runs ignore it. */
  pinned_input?: Record<string, unknown>;
  [policy: string]: unknown;
}

export interface Definition {
  nodes: DefinitionNode[];
  connections: { from: { node: string; port: string }; to: { node: string; port: string } }[];
}

/** A validation finding of the service (`POST /api/copilot/validate/pipeline`). */
export interface Finding {
  node_id: string | null;
  message: string;
  /** Where in the node or definition, e.g. config.expression. */
  path?: string;
}

export interface NodeRunStatus {
  status: string;
  duration_ms: number;
  error?: { code: string; message: string };
}

export interface CanvasNodeData extends Record<string, unknown> {
  spec: DefinitionNode;
  type?: CatalogNode;
  errors: string[];
  run?: NodeRunStatus;
}

export type CanvasNode = Node<CanvasNodeData, "pipeline">;

const COLUMN = 260;
const ROW = 140;

export function toCanvas(def: Definition, catalog: Map<string, CatalogNode>): { nodes: CanvasNode[]; edges: Edge[] } {
  const nodes = def.nodes.map((spec, i) => ({
    id: spec.id,
    type: "pipeline" as const,
    position: spec.position ?? { x: (i % 4) * COLUMN, y: Math.floor(i / 4) * ROW },
    data: { spec, type: catalog.get(spec.type), errors: [] },
  }));
  const edges = def.connections.map((c) => ({
    id: edgeId(c.from.node, c.from.port, c.to.node, c.to.port),
    source: c.from.node,
    sourceHandle: c.from.port,
    target: c.to.node,
    targetHandle: c.to.port,
  }));
  return { nodes, edges };
}

export function toDefinition(nodes: CanvasNode[], edges: Edge[]): Definition {
  return {
    nodes: nodes.map((n) => ({ ...n.data.spec, position: { x: Math.round(n.position.x), y: Math.round(n.position.y) } })),
    connections: edges.map((e) => ({ from: { node: e.source, port: e.sourceHandle ?? "output" }, to: { node: e.target, port: e.targetHandle ?? "input" } })),
  };
}

export const edgeId = (from: string, fromPort: string, to: string, toPort: string) => `${from}.${fromPort}->${to}.${toPort}`;

/** A node id not yet used: the type's last segment, numbered. */
export function freshId(type: string, taken: Set<string>): string {
  const base = (type.split(".").at(-1) ?? "node").replace(/[^A-Za-z0-9_-]/g, "_");
  for (let i = 1; ; i++) {
    const id = `${base}_${i}`;
    if (!taken.has(id)) return id;
  }
}
