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
