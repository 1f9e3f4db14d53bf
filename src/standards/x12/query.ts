// Reading a loop tree: the segments and loops of a node, by id and qualifier.
import { isLoopNode, type LoopNode } from "./loops";
import { el, type Segment } from "./model";

/** Segments `id` directly in `node` (not in child loops), optionally with element 1 in `quals`. */
export function segs(node: LoopNode | undefined, id: string, quals?: readonly string[]): Segment[] {
  if (!node) return [];
  return node.children.filter((c): c is Segment => !isLoopNode(c) && c.id === id && (!quals || quals.includes(el(c, 1))));
}

export const seg1 = (node: LoopNode | undefined, id: string, quals?: readonly string[]): Segment | undefined => segs(node, id, quals)[0];

/** Child loops of `node` with one of the ids. */
export function loops(node: LoopNode | undefined, ...ids: string[]): LoopNode[] {
  if (!node) return [];
  return node.children.filter((c): c is LoopNode => isLoopNode(c) && ids.includes(c.loop));
}

export const loop1 = (node: LoopNode | undefined, ...ids: string[]): LoopNode | undefined => loops(node, ...ids)[0];

/** Loops with one of the ids anywhere below `node`, in document order. */
export function descendants(node: LoopNode | undefined, ...ids: string[]): LoopNode[] {
  const out: LoopNode[] = [];
  const walk = (n: LoopNode) => {
    for (const c of n.children) {
      if (!isLoopNode(c)) continue;
      if (ids.includes(c.loop)) out.push(c);
      walk(c);
    }
  };
  if (node) walk(node);
  return out;
}

/** The trigger segment of a loop. */
export const head = (node: LoopNode | undefined): Segment | undefined => node?.children[0] as Segment | undefined;
