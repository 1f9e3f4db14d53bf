// The node catalog: the registry's node types, by category, by search, or one by id.
import { notFound } from "../../../platform/errors";
import type { Category, NodeType } from "../node-type";
import type { NodeRegistry } from "../registry";

export const listNodeTypes = (nodes: NodeRegistry, category?: Category): NodeType<unknown>[] => nodes.byCategory(category);

export const searchNodeTypes = (nodes: NodeRegistry, query: string): NodeType<unknown>[] => nodes.search(query);

export function getNodeType(nodes: NodeRegistry, id: string): NodeType<unknown> {
  const node = nodes.get(id);
  if (!node) throw notFound(`No node type ${id}`, "NODE_TYPE_NOT_FOUND");
  return node;
}
