// The in-memory HL7 v2 message: segments keep their fields as the raw (escaped)
// text that was received, so re-encoding is byte-exact; values are split into
// repetitions, components and subcomponents only when read, and decoded
// (escape sequences resolved) at the leaves.

import { type Delimiters, escapeValue, unescapeValue } from "./escape";

/** Header segments whose first two fields are the delimiters themselves. */
const HEADER_SEGMENTS = new Set(["MSH", "FHS", "BHS"]);

/** Depth of a value: a field holds repetitions, which hold components, which hold subcomponents. */
export type ValueLevel = 0 | 1 | 2 | 3;

/**
 * A read-only view of one field, repetition, component or subcomponent.
 * `s(i)` reads the decoded first leaf of the i-th part (1-based), so a data-type
 * reader works the same on a repetition (components) and on a component (subcomponents).
 */
export class Hl7Value {
  private parts?: Hl7Value[];
  constructor(
    readonly raw: string,
    readonly level: ValueLevel,
    readonly delimiters: Delimiters,
  ) {}

  /** True when nothing is there (absent or empty). The HL7 null `""` is not empty: see isNull. */
  get isEmpty(): boolean {
    return this.raw === "";
  }
  /** The explicit HL7 null `""` ("delete this value"). */
  get isNull(): boolean {
    return this.raw === '""';
  }

  /** Decoded text of the first leaf (first repetition, component and subcomponent). */
  get value(): string {
    let v: Hl7Value = this;
    while (v.level < 3) v = v.part(1);
    return unescapeValue(v.raw, this.delimiters);
  }

  /** Decoded text of the whole value, separators kept as written (for display and free text). */
  get text(): string {
    return unescapeValue(this.raw, this.delimiters);
  }

  private separator(): string | undefined {
    const d = this.delimiters;
    if (this.level === 0) return d.repetition;
    if (this.level === 1) return d.component;
    if (this.level === 2) return d.subcomponent;
    return undefined;
  }

  /** The parts one level down (repetitions of a field, components of a repetition...). */
  list(): Hl7Value[] {
    if (this.parts) return this.parts;
    const sep = this.separator();
    const next = (this.level + 1) as ValueLevel;
    if (sep === undefined || this.level === 3) {
      this.parts = [this];
    } else if (this.raw === "") {
      this.parts = [];
    } else {
      this.parts = this.raw.split(sep).map((r) => new Hl7Value(r, next, this.delimiters));
    }
    return this.parts;
  }

  /** The i-th part one level down (1-based); an empty value when absent. */
  part(i: number): Hl7Value {
    if (this.level === 3) return i === 1 ? this : new Hl7Value("", 3, this.delimiters);
    return this.list()[i - 1] ?? new Hl7Value("", (this.level + 1) as ValueLevel, this.delimiters);
  }

  /**
   * Decoded first leaf of the i-th component (field or repetition) or of the i-th
   * subcomponent (component).
   */
  s(i: number): string {
    return this.level <= 1 ? this.comp(i).value : this.part(i).value;
  }

  /** Repetitions of a field (a non-field value is its own single repetition). Empty repetitions are kept. */
  repetitions(): Hl7Value[] {
    if (this.level !== 0) return [this];
    return this.list();
  }

  /** The i-th repetition (1-based). */
  rep(i: number): Hl7Value {
    return this.level === 0 ? this.part(i) : i === 1 ? this : new Hl7Value("", 1, this.delimiters);
  }

  /** The i-th component (of the first repetition when this is a field). */
  comp(i: number): Hl7Value {
    if (this.level === 0) return this.part(1).part(i);
    if (this.level === 1) return this.part(i);
    return i === 1 ? this : new Hl7Value("", 2, this.delimiters);
  }

  /** The j-th subcomponent (of the first component when this is a field or repetition). */
  sub(j: number): Hl7Value {
    if (this.level < 2) return this.comp(1).part(j);
    return this.part(j);
  }
}

/** Address of a value: component and subcomponent are 1-based, as in HL7 documentation. */
export interface ValueAddress {
  field: number;
  /** 1-based repetition; undefined = the first (get) or all (getAll). */
  repetition?: number;
  component?: number;
  subcomponent?: number;
}

export class Hl7Segment {
  private cache = new Map<number, Hl7Value>();
  /**
   * Raw (escaped) field texts indexed by HL7 field number: fields[0] is the segment
   * name. In MSH, FHS and BHS, fields[1] is the field separator and fields[2] the
   * encoding characters, so that MSH-n is fields[n] as in the standard.
   */
  readonly fields: string[];
  constructor(
    fields: string[],
    readonly delimiters: Delimiters,
  ) {
    this.fields = fields;
  }

  get name(): string {
    return this.fields[0] ?? "";
  }

  get isHeader(): boolean {
    return HEADER_SEGMENTS.has(this.name);
  }

  /** Number of the last field present. */
  get length(): number {
    return this.fields.length - 1;
  }

  /** A view of field n (1-based). MSH-1 and MSH-2 are returned as single leaves. */
  field(n: number): Hl7Value {
    let v = this.cache.get(n);
    if (!v) {
      const raw = this.fields[n] ?? "";
      v = new Hl7Value(raw, this.isHeader && (n === 1 || n === 2) ? 3 : 0, this.delimiters);
      this.cache.set(n, v);
    }
    return v;
  }

  /** Decoded value at an address; undefined when empty. */
  get(address: ValueAddress | string): string | undefined {
    const a = typeof address === "string" ? parseValueAddress(address) : address;
    const v = this.at(a, a.repetition ?? 1);
    const s = v.value;
    return s === "" ? undefined : s;
  }

  /** Decoded values of every repetition at an address (or of the one asked for); empty ones left out. */
  getAll(address: ValueAddress | string): string[] {
    const a = typeof address === "string" ? parseValueAddress(address) : address;
    const reps = a.repetition !== undefined ? [a.repetition] : this.field(a.field).repetitions().map((_, i) => i + 1);
    const out: string[] = [];
    for (const r of reps) {
      const s = this.at(a, r).value;
      if (s !== "") out.push(s);
    }
    return out;
  }

  private at(a: ValueAddress, repetition: number): Hl7Value {
    let v = this.field(a.field);
    if (v.level === 3) return v;
    v = v.rep(repetition);
    if (a.component !== undefined) v = v.part(a.component);
    if (a.subcomponent !== undefined) v = a.component === undefined ? v.part(1).part(a.subcomponent) : v.part(a.subcomponent);
    return v;
  }

  /**
   * Write a plain value (escaped here) at an address, growing the segment as needed.
   * Writing MSH-1/MSH-2 is refused: delimiters are fixed for a message.
   */
  set(address: ValueAddress | string, value: string): void {
    const a = typeof address === "string" ? parseValueAddress(address) : address;
    if (this.isHeader && (a.field === 1 || a.field === 2)) throw new RangeError(`${this.name}-${a.field} holds the delimiters and cannot be set`);
    if (a.field < 1) throw new RangeError("field numbers start at 1");
    const d = this.delimiters;
    const sub = d.subcomponent ?? "&";
    const reps = (this.fields[a.field] ?? "").split(d.repetition);
    const r = (a.repetition ?? 1) - 1;
    while (reps.length <= r) reps.push("");
    const comps = (reps[r] ?? "").split(d.component);
    const c = (a.component ?? 1) - 1;
    while (comps.length <= c) comps.push("");
    const subs = (comps[c] ?? "").split(sub);
    const s = (a.subcomponent ?? 1) - 1;
    while (subs.length <= s) subs.push("");
    const escaped = escapeValue(value, d);
    if (a.component === undefined && a.subcomponent === undefined) reps[r] = escaped;
    else {
      subs[s] = escaped;
      comps[c] = trimEnd(subs, "").join(sub);
      reps[r] = trimEnd(comps, "").join(d.component);
    }
    while (this.fields.length <= a.field) this.fields.push("");
    this.fields[a.field] = trimEnd(reps, "").join(d.repetition);
    this.cache.delete(a.field);
  }

  /** The segment as it is written in a message (no terminator). */
  toString(): string {
    const fs = this.delimiters.field;
    if (this.isHeader) return this.name + fs + this.fields.slice(2).join(fs);
    return this.fields.join(fs);
  }
}

function trimEnd(a: string[], empty: string): string[] {
  let n = a.length;
  while (n > 1 && a[n - 1] === empty) n--;
  return n === a.length ? a : a.slice(0, n);
}

const ADDRESS = /^(\d+)(?:\[(\d+)\])?(?:\.(\d+))?(?:\.(\d+))?$/;

/** "3", "3[2]", "3.4", "3[1].4.1" → address (the part of a path after "SEG-"). */
export function parseValueAddress(text: string): ValueAddress {
  const m = ADDRESS.exec(text.trim());
  if (!m) throw new RangeError(`not a field address: ${JSON.stringify(text)}`);
  const n = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const a: ValueAddress = { field: Number(m[1]) };
  if (m[2] !== undefined) a.repetition = n(m[2]);
  if (m[3] !== undefined) a.component = n(m[3]);
  if (m[4] !== undefined) a.subcomponent = n(m[4]);
  for (const k of ["repetition", "component", "subcomponent"] as const) {
    if (a[k] === 0) throw new RangeError(`${k} numbers start at 1: ${JSON.stringify(text)}`);
  }
  return a;
}

export interface Hl7Path extends ValueAddress {
  segment: string;
  /** 1-based occurrence of the segment; undefined = the first (get) or all (getAll). */
  occurrence?: number;
}

const PATH = /^([A-Z][A-Z0-9]{2})(?:\[(\d+)\])?[-.](.+)$/;

/** "PID-3[1].4.1", "OBX[2]-5", "MSH-9.2" → path. Throws RangeError on bad syntax. */
export function parsePath(text: string): Hl7Path {
  const m = PATH.exec(text.trim());
  if (!m) throw new RangeError(`not an HL7 path: ${JSON.stringify(text)}`);
  const occurrence = m[2] === undefined ? undefined : Number(m[2]);
  if (occurrence === 0) throw new RangeError(`segment occurrences start at 1: ${JSON.stringify(text)}`);
  return { segment: m[1]!, occurrence, ...parseValueAddress(m[3]!) };
}

export interface EncodeOptions {
  /** Segment terminator (default "\r", as the standard requires). */
  lineEnd?: string;
  /** Terminate the last segment too (default true). */
  trailing?: boolean;
}

export class Hl7Message {
  constructor(
    readonly delimiters: Delimiters,
    readonly segments: Hl7Segment[],
  ) {}

  /** The MSH segment (always the first one of a parsed message). */
  get header(): Hl7Segment {
    return this.segments[0]!;
  }

  /** MSH-9.1, e.g. "ADT". */
  get messageType(): string {
    return this.header.field(9).s(1);
  }
  /** MSH-9.2, e.g. "A01". */
  get triggerEvent(): string {
    return this.header.field(9).s(2);
  }
  /** MSH-9.3, e.g. "ADT_A01" (absent before v2.3.1). */
  get messageStructure(): string {
    return this.header.field(9).s(3);
  }
  /** MSH-10. */
  get controlId(): string {
    return this.header.field(10).value;
  }
  /** MSH-11.1, e.g. "P". */
  get processingId(): string {
    return this.header.field(11).s(1);
  }
  /** MSH-12.1, e.g. "2.5.1". */
  get version(): string {
    return this.header.field(12).s(1);
  }
  /** MSH-7 as written (HL7 DTM). */
  get dateTime(): string {
    return this.header.field(7).s(1);
  }
  get sendingApplication(): Hl7Value {
    return this.header.field(3);
  }
  get sendingFacility(): Hl7Value {
    return this.header.field(4);
  }
  get receivingApplication(): Hl7Value {
    return this.header.field(5);
  }
  get receivingFacility(): Hl7Value {
    return this.header.field(6);
  }

  /** The n-th (1-based) segment with this name. */
  segment(name: string, occurrence = 1): Hl7Segment | undefined {
    let seen = 0;
    for (const s of this.segments) if (s.name === name && ++seen === occurrence) return s;
    return undefined;
  }

  segmentsNamed(name: string): Hl7Segment[] {
    return this.segments.filter((s) => s.name === name);
  }

  /** Decoded value at a path like "PID-3[1].4.1"; undefined when absent or empty. */
  get(path: string | Hl7Path): string | undefined {
    const p = typeof path === "string" ? parsePath(path) : path;
    return this.segment(p.segment, p.occurrence ?? 1)?.get(p);
  }

  /** Every non-empty value at a path, over all occurrences and repetitions not pinned by the path. */
  getAll(path: string | Hl7Path): string[] {
    const p = typeof path === "string" ? parsePath(path) : path;
    const segs = p.occurrence !== undefined ? [this.segment(p.segment, p.occurrence)] : this.segmentsNamed(p.segment);
    return segs.flatMap((s) => (s ? s.getAll(p) : []));
  }

  /** Write a plain value at a path (the segment occurrence must exist). */
  set(path: string | Hl7Path, value: string): void {
    const p = typeof path === "string" ? parsePath(path) : path;
    const seg = this.segment(p.segment, p.occurrence ?? 1);
    if (!seg) throw new RangeError(`no ${p.segment}${p.occurrence ? `[${p.occurrence}]` : ""} segment`);
    seg.set(p, value);
  }

  /** Re-serialise the message (byte-exact for the segments as parsed). */
  toString(options?: EncodeOptions): string {
    return encodeSegments(this.segments, options);
  }
}

export function encodeSegments(segments: readonly Hl7Segment[], options?: EncodeOptions): string {
  const end = options?.lineEnd ?? "\r";
  const body = segments.map((s) => s.toString()).join(end);
  return options?.trailing === false ? body : body + end;
}
