// The node catalog: the registry's node types, by category, by search, or one by id.
import { notFound } from "../../../platform/errors";
import type { Category, NodeType } from "../node-type";
import { registry } from "../registry";

export const listNodeTypes = (category?: Category): NodeType<unknown>[] => registry.byCategory(category);

export const searchNodeTypes = (query: string): NodeType<unknown>[] => registry.search(query);

export function getNodeType(id: string): NodeType<unknown> {
  const node = registry.get(id);
  if (!node) throw notFound(`No node type ${id}`, "NODE_TYPE_NOT_FOUND");
  return node;
}
