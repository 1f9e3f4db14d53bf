// Writing HL7 v2 segments from plain values. Every leaf is escaped here (escape.ts:
// \F\ \S\ \T\ \R\ \E\, line breaks as \.br\), and empty trailing parts are left out at
// every level, so that a value reads back through the parser exactly as it was given.

import { type Delimiters, encodingCharacters, escapeValue } from "../escape";
import { Hl7Segment } from "../message";

/** A leaf: text (or a number) written as one escaped value; undefined and "" are empty. */
export type Sub = string | number | undefined;
/** A component: one leaf, or its subcomponents. */
export type Comp = Sub | readonly Sub[];
/** One repetition of a field: its components, component 1 first. */
export type Rep = readonly Comp[];

/** Several repetitions of a field (empty ones are left out). */
export class Repeated {
  constructor(readonly reps: readonly (Rep | Sub)[]) {}
}

/** A field: a leaf, the components of its one repetition, or its repetitions. */
export type FieldValue = Sub | Rep | Repeated;

/** Fields of a segment by HL7 field number (1-based). */
export type Fields = Readonly<Record<number, FieldValue>>;

export const repeat = (reps: readonly (Rep | Sub | undefined)[]): Repeated => new Repeated(reps.filter((r) => r !== undefined));

function leaf(v: Sub, d: Delimiters): string {
  if (v === undefined) return "";
  return escapeValue(typeof v === "number" ? decimalText(v) : v, d);
}

/** Joins parts, leaving out the empty ones at the end. */
function joinTrimmed(parts: string[], separator: string): string {
  let n = parts.length;
  while (n > 0 && parts[n - 1] === "") n--;
  return parts.slice(0, n).join(separator);
}

function encodeComp(c: Comp, d: Delimiters): string {
  // Array.from, not map: positions left unset (holes) are empty parts too.
  if (Array.isArray(c)) return joinTrimmed(Array.from(c as readonly Sub[], (s) => leaf(s, d)), d.subcomponent ?? "&");
  return leaf(c as Sub, d);
}

function encodeRep(r: Rep | Sub, d: Delimiters): string {
  if (!Array.isArray(r)) return leaf(r as Sub, d);
  return joinTrimmed(Array.from(r as Rep, (c) => encodeComp(c, d)), d.component);
}

/** The escaped text of one field. */
export function encodeField(v: FieldValue, d: Delimiters): string {
  if (v instanceof Repeated) return v.reps.map((r) => encodeRep(r, d)).filter((s) => s !== "").join(d.repetition);
  return encodeRep(v as Rep | Sub, d);
}

/** True when a field would be written empty. */
export function isEmptyField(v: FieldValue, d: Delimiters): boolean {
  return encodeField(v, d) === "";
}

/** A segment from its fields; absent fields and empty trailing ones are left out. */
export function segment(name: string, fields: Fields, d: Delimiters): Hl7Segment {
  const numbers = Object.keys(fields).map(Number);
  const last = numbers.length ? Math.max(...numbers) : 0;
  const raw = [name];
  for (let n = 1; n <= last; n++) raw.push(fields[n] === undefined ? "" : encodeField(fields[n]!, d));
  let end = raw.length;
  while (end > 1 && raw[end - 1] === "") end--;
  return new Hl7Segment(raw.slice(0, end), d);
}

/** The MSH segment: MSH-1 and MSH-2 are the delimiters themselves, never escaped. */
export function headerSegment(fields: Fields, d: Delimiters): Hl7Segment {
  const rest = segment("MSH", { ...fields, 1: undefined, 2: undefined }, d);
  const raw = [...rest.fields];
  while (raw.length < 3) raw.push("");
  raw[1] = d.field;
  raw[2] = encodingCharacters(d);
  return new Hl7Segment(raw, d);
}

/** A decimal as NM text: no exponent (HL7 NM does not allow one). */
export function decimalText(n: number): string {
  if (!Number.isFinite(n)) return "";
  const s = String(n);
  if (!/e/i.test(s)) return s;
  const digits = Math.min(100, Math.max(0, 15 - Math.floor(Math.log10(Math.abs(n)))));
  return withoutTrailingZeros(n.toFixed(digits));
}

/** "1.2300" → "1.23", "5.000" → "5"; by index, since a regex for it backtracks on runs of zeros. */
function withoutTrailingZeros(fixed: string): string {
  if (!fixed.includes(".")) return fixed;
  let end = fixed.length;
  while (fixed[end - 1] === "0") end--;
  if (fixed[end - 1] === ".") end--;
  return fixed.slice(0, end);
}

// ---------------------------------------------------------------- dates

const FHIR_DATETIME = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/**
 * FHIR date, dateTime or instant → HL7 DTM, keeping the precision: 2024, 202403, 20240315,
 * 20240315083000[.ffff]±hhmm. A zone is always written when the value has one ("Z" as +0000),
 * so the receiver never has to guess. Undefined when the value is not a FHIR date/time.
 */
export function hl7DateTime(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = FHIR_DATETIME.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, f, z] = m;
  let out = `${y}${mo ?? ""}${d ?? ""}`;
  if (h === undefined) return out;
  out += `${h}${mi}${s ?? "00"}`;
  const fraction = f?.slice(0, 4).replace(/0+$/, "");
  if (fraction) out += `.${fraction}`;
  if (z) out += z === "Z" ? "+0000" : z.replace(":", "");
  return out;
}

/** FHIR time (hh:mm:ss[.s]) → HL7 TM (hhmmss[.ssss]). */
export function hl7Time(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/.exec(value.trim());
  if (!m) return undefined;
  const fraction = m[4]?.slice(0, 4).replace(/0+$/, "");
  return `${m[1]}${m[2]}${m[3] ?? "00"}${fraction ? `.${fraction}` : ""}`;
}
