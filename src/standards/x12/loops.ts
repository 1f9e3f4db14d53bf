// Groups a transaction set's segments into the loops of its table and checks required
// segments and elements. Every segment is kept (an unexpected one stays in the loop where
// it was found, with an issue), so nothing is lost and the builder can write it back.

import { X12Error } from "./errors";
import { COMPONENT, el, isCalendarDate, REPETITION, type Segment, type TransactionSet } from "./model";
import { type ElementRule, isLoop, type LoopRule, type SegmentRule, type SetTable } from "./table";

export interface LoopNode {
  /** TR3 loop id ("2300"); "HEADER" for the set itself. */
  loop: string;
  name: string;
  /** Segments and child loops in the order they were read; the trigger segment first. */
  children: (Segment | LoopNode)[];
  /** The trigger segment's id when the loop was read without it (reported MISSING_SEGMENT). */
  missingTrigger?: string;
}

export const isLoopNode = (c: Segment | LoopNode): c is LoopNode => "loop" in c;

interface Frame {
  rules: readonly (SegmentRule | LoopRule)[];
  node: LoopNode;
  /** Index of the rule matched last; a loop frame starts on its trigger (0). */
  at: number;
  counts: number[];
  /** HL01 when the loop is an HL loop. */
  hlId?: string;
}

function matches(rule: SegmentRule, s: Segment): boolean {
  if (rule.seg !== s.id) return false;
  if (!rule.when) return true;
  return rule.when[1].includes(firstComponent(el(s, rule.when[0])));
}

const triggerOf = (r: SegmentRule | LoopRule): SegmentRule => (isLoop(r) ? r.children[0] : r);

function segmentIds(rules: readonly (SegmentRule | LoopRule)[], into = new Set<string>()): Set<string> {
  for (const r of rules) {
    if (isLoop(r)) segmentIds(r.children, into);
    else into.add(r.seg);
  }
  return into;
}

const ID_CACHE = new WeakMap<SetTable, Set<string>>();

interface CompiledElement {
  n: number;
  unused: boolean;
  req: boolean;
  once: boolean;
  codes?: readonly string[];
  date?: boolean;
}

const COMPILED = new WeakMap<SegmentRule, CompiledElement[]>();

/** A rule's element checks in a flat form, made once per rule (the reader runs them per segment). */
function compiled(rule: SegmentRule): CompiledElement[] {
  let c = COMPILED.get(rule);
  if (c) return c;
  c = Object.entries(rule.els ?? {}).map(([key, r]: [string, ElementRule]) => {
    const n = Number(key);
    if (r === "X") return { n, unused: true, req: false, once: false };
    if (r === "R") return { n, unused: false, req: true, once: false };
    if (Array.isArray(r)) return { n, unused: false, req: true, once: false, codes: r as readonly string[] };
    const long = r as { codes?: readonly string[]; req?: boolean; once?: boolean; date?: boolean };
    return { n, unused: false, req: !!long.req, once: !!long.once, codes: long.codes, date: !!long.date };
  });
  COMPILED.set(rule, c);
  return c;
}

const firstComponent = (v: string) => {
  const i = v.indexOf(COMPONENT);
  return i < 0 ? v : v.slice(0, i);
};

// Module-level rather than closures: the reader calls these for every segment.
function elementName(s: Segment, n: number): string {
  return `${s.id}${String(n).padStart(2, "0")}`;
}

function placeOf(s: Segment, element: number, loop: string, positionInSet: number) {
  return { segmentIndex: s.index, segmentId: s.id, element, loop, positionInSet };
}

/** Checks one segment's elements against its rule; problems go into `issues`. */
export function checkElements(rule: SegmentRule, s: Segment, loopId: string, positionInSet: number, issues: X12Error[]): void {
  const els = compiled(rule);
  if (!els.length && rule.maxElements === undefined) return;
  if (rule.maxElements !== undefined && s.elements.length > rule.maxElements) {
    issues.push(new X12Error("TOO_MANY_ELEMENTS", `${s.id} allows at most ${rule.maxElements} elements, found ${s.elements.length}`, placeOf(s, rule.maxElements + 1, loopId, positionInSet)));
  }
  for (const r of els) {
    const v = s.elements[r.n - 1] ?? "";
    if (r.unused) {
      if (v !== "") issues.push(new X12Error("ELEMENT_NOT_USED", `${elementName(s, r.n)} is not used in this transaction set but holds '${v.replaceAll(COMPONENT, ":")}'`, placeOf(s, r.n, loopId, positionInSet)));
      continue;
    }
    if (v === "") {
      if (r.req) issues.push(new X12Error("MISSING_ELEMENT", `${elementName(s, r.n)} is required`, placeOf(s, r.n, loopId, positionInSet)));
      continue;
    }
    if (r.date && !isCalendarDate(v)) issues.push(new X12Error("BAD_DATE", `${elementName(s, r.n)} '${v}' is not a CCYYMMDD date`, placeOf(s, r.n, loopId, positionInSet)));
    if (!r.codes && !r.once) continue;
    const reps = v.includes(REPETITION) ? v.split(REPETITION) : [v];
    if (r.once && reps.length > 1) issues.push(new X12Error("TOO_MANY_REPETITIONS", `${elementName(s, r.n)} is one element, not repeated (write further values in the next elements)`, placeOf(s, r.n, loopId, positionInSet)));
    if (!r.codes) continue;
    for (const rep of reps) {
      const code = firstComponent(rep);
      if (!r.codes.includes(code)) issues.push(new X12Error("BAD_CODE", `${elementName(s, r.n)} '${code}' is not one of ${r.codes.join(", ")}`, { ...placeOf(s, r.n, loopId, positionInSet), component: rep.includes(COMPONENT) ? 1 : undefined }));
    }
  }
}

/** Reports required rules in [from, to) that never matched: the reader has moved past them. */
function passRequired(f: Frame, from: number, to: number, by: Segment | undefined, positionInSet: number, issues: X12Error[]) {
  for (let i = from; i < to; i++) {
    const r = f.rules[i]!;
    if (f.counts[i]) continue;
    const t = triggerOf(r);
    const required = isLoop(r) ? r.req : r.req;
    if (!required) continue;
    const what = isLoop(r) ? `loop ${r.loop} (${r.name}, starting with ${t.seg}${t.when ? `*${t.when[1].join("/")}` : ""})` : `segment ${t.seg}${t.when ? ` with ${t.seg}${String(t.when[0]).padStart(2, "0")} ${t.when[1].join("/")}` : ""}`;
    issues.push(new X12Error("MISSING_SEGMENT", `${what} is required in loop ${f.node.loop}${by ? ` before ${by.id}` : ""}`, { segmentIndex: by?.index, segmentId: t.seg, loop: f.node.loop, positionInSet }));
  }
}

function closeFrame(f: Frame, by: Segment | undefined, positionInSet: number, issues: X12Error[]) {
  passRequired(f, f.at, f.rules.length, by, positionInSet, issues);
}

export interface Looped {
  root: LoopNode;
  issues: X12Error[];
}

/** Reads a transaction set's body into loops per `table`. */
export function readLoops(tx: TransactionSet, table: SetTable): Looped {
  const issues: X12Error[] = [];
  const root: LoopNode = { loop: "HEADER", name: "Header", children: [] };
  const stack: Frame[] = [{ rules: table.body, node: root, at: 0, counts: [] }];
  const hlLevels = new Map<string, string>();
  const ids = ID_CACHE.get(table) ?? segmentIds(table.body);
  ID_CACHE.set(table, ids);
  for (const [i, s] of tx.body.entries()) {
    const positionInSet = i + 2;
    let placed = place(s, positionInSet);
    const headless = placed ? undefined : headlessLoop(stack, s, tx.body, i);
    if (headless) {
      // The loop's trigger is missing: one issue naming it, and the loop read without it.
      const f = stack[headless.d]!;
      const r = f.rules[headless.j] as LoopRule;
      const t = r.children[0];
      while (stack.length - 1 > headless.d) closeFrame(stack.pop()!, s, positionInSet, issues);
      passRequired(f, f.at, headless.j, s, positionInSet, issues);
      f.at = headless.j;
      f.counts[headless.j] = (f.counts[headless.j] ?? 0) + 1;
      const node: LoopNode = { loop: r.loop, name: r.name, children: [], missingTrigger: t.seg };
      f.node.children.push(node);
      stack.push({ rules: r.children, node, at: 0, counts: [1] });
      const what = `segment ${t.seg}${t.when ? ` with ${t.seg}${String(t.when[0]).padStart(2, "0")} ${t.when[1].join("/")}` : ""}`;
      issues.push(new X12Error("MISSING_SEGMENT", `${what} is required to start loop ${r.loop} (${r.name}) before ${s.id}`, { segmentIndex: s.index, segmentId: t.seg, loop: r.loop, positionInSet }));
      placed = place(s, positionInSet);
    }
    if (!placed) {
      const top = stack[stack.length - 1]!;
      top.node.children.push(s);
      const known = ids.has(s.id);
      issues.push(
        new X12Error(known ? "UNEXPECTED_SEGMENT" : "UNRECOGNIZED_SEGMENT", known ? `${s.id} is not expected here (after ${lastId(top.node)} in loop ${top.node.loop}): out of order or in the wrong loop` : `${s.id} is not a segment of transaction set ${table.id}`, {
          segmentIndex: s.index,
          segmentId: s.id,
          loop: top.node.loop,
          positionInSet,
        }),
      );
    }
  }
  const end = tx.body.length + 2;
  while (stack.length) closeFrame(stack.pop()!, tx.se, end, issues);
  return { root, issues };

  /** Places `s` by the first rule that takes it, innermost loop first; false when none does. */
  function place(s: Segment, positionInSet: number): boolean {
    let placed = false;
    for (let d = stack.length - 1; d >= 0 && !placed; d--) {
      const f = stack[d]!;
      const j = findRule(f, d > 0, s);
      if (j >= 0) {
        const r = f.rules[j]!;
        while (stack.length - 1 > d) closeFrame(stack.pop()!, s, positionInSet, issues);
        passRequired(f, f.at, j, s, positionInSet, issues);
        f.at = j;
        f.counts[j] = (f.counts[j] ?? 0) + 1;
        const max = isLoop(r) ? r.max : (r.max ?? 1);
        if (max !== undefined && f.counts[j]! > max) {
          issues.push(new X12Error("SEGMENT_REPEATED", `${isLoop(r) ? `loop ${r.loop}` : s.id} occurs more than ${max} time(s) in loop ${f.node.loop}`, { segmentIndex: s.index, segmentId: s.id, loop: f.node.loop, positionInSet }));
        }
        if (isLoop(r)) {
          const node: LoopNode = { loop: r.loop, name: r.name, children: [s] };
          f.node.children.push(node);
          const frame: Frame = { rules: r.children, node, at: 0, counts: [1] };
          if (s.id === "HL") frame.hlId = checkHl(s, stack, hlLevels, r.loop, positionInSet, issues);
          stack.push(frame);
          checkElements(r.children[0], s, r.loop, positionInSet, issues);
        } else {
          f.node.children.push(s);
          checkElements(r, s, f.node.loop, positionInSet, issues);
        }
        placed = true;
      }
    }
    return placed;
  }
}

/**
 * A loop whose trigger is missing (an 837 without its CLM): the first loop rule at or after a
 * frame's position, innermost frame first, one of whose own segments or child loops takes `s`,
 * unless the trigger comes later before the next HL (then `s` is out of order, not headless).
 */
function headlessLoop(stack: Frame[], s: Segment, body: Segment[], i: number): { d: number; j: number } | undefined {
  for (let d = stack.length - 1; d >= 0; d--) {
    const f = stack[d]!;
    for (let j = Math.max(f.at, d > 0 && f.at === 0 ? 1 : 0); j < f.rules.length; j++) {
      const r = f.rules[j]!;
      if (!isLoop(r) || !r.children.slice(1).some((c) => matches(triggerOf(c), s))) continue;
      const trigger = r.children[0];
      for (let k = i + 1; k < body.length && body[k]!.id !== "HL"; k++) if (matches(trigger, body[k]!)) return undefined;
      return { d, j };
    }
  }
  return undefined;
}

/**
 * The rule `s` matches from the frame's position on; a segment rule already used as often
 * as it may be gives way to a later rule for the same segment (REF, then REF), and is
 * answered only when none follows (to report the repetition). -1: no rule matches.
 */
function findRule(f: Frame, inLoop: boolean, s: Segment): number {
  let full = -1;
  for (let j = Math.max(f.at, inLoop && f.at === 0 ? 1 : 0); j < f.rules.length; j++) {
    const r = f.rules[j]!;
    if (!matches(triggerOf(r), s)) continue;
    if (!isLoop(r) && (f.counts[j] ?? 0) >= (r.max ?? 1)) {
      if (full < 0) full = j;
      continue;
    }
    return j;
  }
  return full;
}

function lastId(node: LoopNode): string {
  const c = node.children[node.children.length - 2];
  return !c ? "its start" : isLoopNode(c) ? `loop ${c.loop}` : c.id;
}

/** HL01 unique, HL02 names the HL of the enclosing HL loop. Answers HL01. */
function checkHl(s: Segment, stack: Frame[], levels: Map<string, string>, loopId: string, positionInSet: number, issues: X12Error[]): string {
  const id = el(s, 1);
  const parent = el(s, 2);
  const place = { segmentIndex: s.index, segmentId: "HL", loop: loopId, positionInSet };
  if (levels.has(id)) issues.push(new X12Error("BAD_HL_PARENT", `HL01 '${id}' is used twice`, { ...place, element: 1 }));
  levels.set(id, el(s, 3));
  let enclosing: string | undefined;
  for (let i = stack.length - 1; i >= 0 && enclosing === undefined; i--) enclosing = stack[i]!.hlId;
  if (enclosing === undefined) {
    if (parent) issues.push(new X12Error("BAD_HL_PARENT", `HL02 '${parent}' given for a top-level HL`, { ...place, element: 2 }));
  } else if (parent !== enclosing) {
    const why = !parent ? "is missing" : levels.has(parent) ? `names HL ${parent}, not the enclosing HL ${enclosing}` : `names no earlier HL`;
    issues.push(new X12Error("BAD_HL_PARENT", `HL02 '${parent}' ${why}`, { ...place, element: 2 }));
  }
  return id;
}
