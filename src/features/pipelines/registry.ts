// The node catalog: every runnable node type, by id. Families register by being
// listed in the composition root's src/main/plugins.ts, which builds the one
// registry of an isolate (the org context carries it as `nodes`); nothing in the
// engine (and nothing here) changes when one is added.
import { z } from "zod";
import { CATEGORIES, type Category, type NodeType, type PortDef } from "./node-type";

export class NodeRegistry {
  private readonly byId = new Map<string, NodeType<unknown>>();

  constructor(families: readonly (readonly NodeType<unknown>[])[]) {
    for (const family of families) for (const node of family) this.add(node);
  }

  add(node: NodeType<unknown>): void {
    if (this.byId.has(node.id)) throw new Error(`Duplicate node type ${node.id}`);
    this.byId.set(node.id, node);
  }

  get(id: string): NodeType<unknown> | undefined {
    return this.byId.get(id);
  }

  /** Awaits every node type's `prepare` (what their save-time checks need loaded). */
  async prepare(): Promise<void> {
    await Promise.all(this.all().map((n) => n.prepare?.()));
  }

  all(): NodeType<unknown>[] {
    return [...this.byId.values()];
  }

  byCategory(category?: Category): NodeType<unknown>[] {
    return this.all().filter((n) => !category || n.category === category);
  }

  /** Case-insensitive match on every word of the query against name, description and keywords. */
  search(query: string): NodeType<unknown>[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return this.all().filter((n) => {
      const haystack = [n.id, n.name, n.description, ...n.keywords].join(" ").toLowerCase();
      return words.every((w) => haystack.includes(w));
    });
  }
}

export const categories: readonly Category[] = CATEGORIES;

/** Every node has an implicit error port, used when its error policy is "route". */
export const ERROR_PORT: PortDef = { name: "error", type: "json", description: "Error details when on_error is route" };

export function outputPorts(node: NodeType<unknown>, config: unknown): PortDef[] {
  return [...(node.outputsFor ? node.outputsFor(config) : node.outputs), ERROR_PORT];
}

const schemaCache = new WeakMap<NodeType<unknown>, unknown>();

/** JSON Schema of a node's configuration, generated once from its zod schema. */
export function configJsonSchema(node: NodeType<unknown>): unknown {
  let schema = schemaCache.get(node);
  if (!schema) {
    schema = z.toJSONSchema(node.config, { io: "input", unrepresentable: "any" });
    schemaCache.set(node, schema);
  }
  return schema;
}
