// Plain JSON of a loop tree, for a node's output ("X12 Parse" to JSON loops): composites
// become arrays of components and repeated elements arrays of repetitions, so a reader of
// the JSON needs neither the delimiters nor the internal separators.

import { isLoopNode, type LoopNode } from "./loops";
import { COMPONENT, REPETITION, type Segment } from "./model";

export type JsonElement = string | string[] | { repeats: (string | string[])[] };
export interface JsonSegment {
  id: string;
  /** elements[0] is element 01. */
  elements: JsonElement[];
}
export interface JsonLoop {
  loop: string;
  name: string;
  children: (JsonSegment | JsonLoop)[];
}

const value = (v: string): string | string[] => (v.includes(COMPONENT) ? v.split(COMPONENT) : v);

export function segmentToJson(s: Segment): JsonSegment {
  return { id: s.id, elements: s.elements.map((v) => (v.includes(REPETITION) ? { repeats: v.split(REPETITION).map(value) } : value(v))) };
}

export function loopsToJson(node: LoopNode): JsonLoop {
  return { loop: node.loop, name: node.name, children: node.children.map((c) => (isLoopNode(c) ? loopsToJson(c) : segmentToJson(c))) };
}

const joined = (v: string | string[]): string => (Array.isArray(v) ? v.join(COMPONENT) : v);

/** The segment a JSON segment stands for (the inverse of segmentToJson). */
export function segmentFromJson(j: JsonSegment): Segment {
  const elements = j.elements.map((e) => (typeof e === "object" && !Array.isArray(e) ? e.repeats.map(joined).join(REPETITION) : joined(e)));
  return { id: j.id, elements, index: -1 };
}

/** The segments of a JSON loop tree in order (the inverse of loopsToJson, flattened). */
export function segmentsFromJson(node: JsonLoop | JsonSegment, into: Segment[] = []): Segment[] {
  if ("loop" in node) for (const c of node.children) segmentsFromJson(c, into);
  else into.push(segmentFromJson(node));
  return into;
}
