// The parsed shape of an X12 file. Element values are plain strings; a composite or a
// repeated element keeps its parts joined by the two internal separators below (control
// characters X12 data can never hold), so values stay independent of the delimiters the
// sender chose and the builder can write them with any others.

export const COMPONENT = "\u001f";
export const REPETITION = "\u001e";

export interface Segment {
  id: string;
  /** elements[0] is element 01. Composites and repetitions use COMPONENT / REPETITION. */
  elements: string[];
  /** 0-based position in the file (the first ISA = 0); -1 for segments made by code. */
  index: number;
}

export interface Delimiters {
  element: string;
  /** ISA16. */
  component: string;
  /** ISA11 from version 00501 on; absent for older interchanges (ISA11 = "U"). */
  repetition?: string;
  segment: string;
}

export interface TransactionSet {
  st: Segment;
  /** The segments between ST and SE. */
  body: Segment[];
  se?: Segment;
}

export interface FunctionalGroup {
  gs: Segment;
  transactions: TransactionSet[];
  ge?: Segment;
}

export interface Interchange {
  isa: Segment;
  delimiters: Delimiters;
  /** Interchange acknowledgments (TA1) carried before the groups. */
  ta1?: Segment[];
  groups: FunctionalGroup[];
  iea?: Segment;
}

export interface X12Document {
  interchanges: Interchange[];
}

/** Element n (1-based) of a segment, "" when absent. */
export function el(seg: Segment | undefined, n: number): string {
  return seg?.elements[n - 1] ?? "";
}

/** Component c (1-based) of element n, "" when absent. A simple element is its own component 1. */
export function comp(seg: Segment | undefined, n: number, c: number): string {
  const v = el(seg, n);
  if (!v.includes(COMPONENT)) return c === 1 ? v : "";
  return v.split(COMPONENT)[c - 1] ?? "";
}

/** The components of a value. */
export function components(value: string): string[] {
  return value.split(COMPONENT);
}

/** The repetitions of a value. */
export function repetitions(value: string): string[] {
  return value === "" ? [] : value.split(REPETITION);
}

/** A composite value from its components, trailing empty ones dropped. */
export function composite(...parts: (string | undefined)[]): string {
  const p = parts.map((x) => x ?? "");
  while (p.length > 1 && p[p.length - 1] === "") p.pop();
  return p.join(COMPONENT);
}

/** A segment made by code, trailing empty elements dropped as X12 requires. */
export function segment(id: string, ...elements: (string | number | undefined)[]): Segment {
  const e = elements.map((x) => (x === undefined ? "" : String(x)));
  while (e.length && e[e.length - 1] === "") e.pop();
  return { id, elements: e, index: -1 };
}

/** CCYYMMDD naming a day that exists (20002316 does not). */
export function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(y, mo - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d;
}
