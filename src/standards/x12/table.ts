// The vocabulary of the loop tables (tables/*.ts): one table per transaction set, written
// as data from the HIPAA 5010 TR3 structure. A loop's first child is its trigger segment;
// segments and loops are listed in TR3 order, and the reader accepts them only in that order.

/**
 * What an element must hold: "R" required, "X" not used (must be empty), an array of codes
 * (required, one of them), or the long form. Codes apply to component 1 of a composite
 * (the qualifier of HI and similar composites).
 */
/** "R" required, "X" not used, a code list, or the long form; `date`: a CCYYMMDD calendar date. */
export type ElementRule = "R" | "X" | readonly string[] | { codes?: readonly string[]; req?: boolean; once?: boolean; date?: boolean };

export interface SegmentRule {
  seg: string;
  req?: boolean;
  /** Occurrences allowed at this position (default 1). */
  max?: number;
  /** Matches only when element `when[0]` holds one of `when[1]` (NM1 entity codes, HL levels...). */
  when?: readonly [number, readonly string[]];
  els?: Readonly<Record<number, ElementRule>>;
  /** More elements than this is an error (CAS: 19, PLB: 14, HI: 12). */
  maxElements?: number;
}

export interface LoopRule {
  loop: string;
  name: string;
  req?: boolean;
  /** Occurrences allowed (default unbounded). */
  max?: number;
  /** children[0] is the trigger segment. */
  children: readonly [SegmentRule, ...(SegmentRule | LoopRule)[]];
}

export type SetId = "270" | "271" | "276" | "277" | "277CA" | "278-request" | "278-response" | "835" | "837P" | "837I";

export interface SetTable {
  id: SetId;
  /** ST01. */
  set: string;
  /** GS08, and ST03 unless `st03Unused`. */
  version: string;
  /** 835: ST03 not used. */
  st03Unused?: boolean;
  /** Everything between ST and SE, in TR3 order. */
  body: readonly (SegmentRule | LoopRule)[];
}

export const isLoop = (r: SegmentRule | LoopRule): r is LoopRule => "loop" in r;

// Shorthands that keep the tables readable.
export const seg = (id: string, more: Omit<SegmentRule, "seg"> = {}): SegmentRule => ({ seg: id, ...more });
export const req = (id: string, more: Omit<SegmentRule, "seg" | "req"> = {}): SegmentRule => ({ seg: id, req: true, ...more });
export const loop = (id: string, name: string, trigger: SegmentRule, children: (SegmentRule | LoopRule)[], more: { req?: boolean; max?: number } = {}): LoopRule => ({
  loop: id,
  name,
  ...more,
  children: [{ ...trigger, req: true }, ...children],
});
/** An NM1 loop for the given entity identifier codes (NM101). */
export const nm1 = (id: string, name: string, codes: readonly string[], children: (SegmentRule | LoopRule)[] = [], more: { req?: boolean; max?: number; els?: SegmentRule["els"] } = {}): LoopRule =>
  loop(id, name, { seg: "NM1", when: [1, codes], els: { 1: codes, 2: ["1", "2"], ...more.els } }, children, { req: more.req, max: more.max });
/** An HL loop for the given level code (HL03). */
export const hl = (id: string, name: string, level: string, children: (SegmentRule | LoopRule)[], more: { req?: boolean; max?: number } = {}): LoopRule =>
  loop(id, name, { seg: "HL", when: [3, [level]], els: { 1: "R", 3: [level] } }, children, more);
