// ACK building (original and enhanced acknowledgment modes) for the version of
// the incoming message: MSH with sender and receiver swapped, MSA echoing the
// control id, ERR segments shaped for v2.3/2.4 (ERR-1) or v2.5+ (ERR-2..8).

import { type Delimiters, escapeValue } from "./escape";
import { Hl7Message, Hl7Segment } from "./message";
import { parseMessage } from "./parse";
import { lookupTable } from "../../platform/object-keys";

export type AckCode = "AA" | "AE" | "AR" | "CA" | "CE" | "CR";

/** HL7 table 0357 (message error condition codes), with their standard texts. */
export const HL7_ERROR_CODES: Readonly<Record<string, string>> = lookupTable({
  "0": "Message accepted",
  "100": "Segment sequence error",
  "101": "Required field missing",
  "102": "Data type error",
  "103": "Table value not found",
  "104": "Value too long",
  "200": "Unsupported message type",
  "201": "Unsupported event code",
  "202": "Unsupported processing id",
  "203": "Unsupported version id",
  "204": "Unknown key identifier",
  "205": "Duplicate key identifier",
  "206": "Application record locked",
  "207": "Application internal error",
});

export interface AckErrorLocation {
  segment: string;
  /** Occurrence of the segment (1-based). */
  sequence?: number;
  field?: number;
  repetition?: number;
  component?: number;
  subcomponent?: number;
}

export interface AckError {
  /** Table 0357 code (default "207" for AE/AR/CE/CR, "0" otherwise). */
  code?: string;
  /** Table 0516: E error, W warning, I information, F fatal (default "E"). */
  severity?: "E" | "W" | "I" | "F";
  location?: AckErrorLocation;
  /** Human-readable text (ERR-8 in v2.5+, the ELD text in v2.3/2.4). */
  text?: string;
}

export interface AckOptions {
  /** MSH-10 of the ACK (default: a random 20-character id). */
  controlId?: string;
  /** MSH-7 of the ACK as an HL7 DTM, or a Date (default: now, UTC). */
  dateTime?: string | Date;
}

/** The incoming message, or only its MSH (from readMsh) when the rest could not be parsed. */
export type AckSource = Hl7Message | { delimiters: Delimiters; msh: Hl7Segment };

/** "2.5.1" → [2, 5, 1]; unknown versions count as 2.5. */
function versionOf(v: string): number[] {
  const parts = v.split(".").map((p) => Number.parseInt(p, 10));
  if (parts.length < 2 || parts.some((n) => !Number.isFinite(n))) return [2, 5];
  return parts;
}

function atLeast(v: number[], major: number, minor: number, patch = 0): boolean {
  const [a = 0, b = 0, c = 0] = v;
  if (a !== major) return a > major;
  if (b !== minor) return b > minor;
  return c >= patch;
}

function formatDtm(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}+0000`;
}

function randomControlId(): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, 20).toUpperCase();
}

/**
 * Build the ACK for a message. `text` goes to MSA-3 before v2.7 (where MSA-3 was
 * withdrawn it goes to an informational ERR-8); `errors` become ERR segments.
 */
export function buildAck(source: AckSource, code: AckCode, text?: string, errors?: AckError[], options?: AckOptions): Hl7Message {
  const msh = source instanceof Hl7Message ? source.header : source.msh;
  const d = source.delimiters;
  const version = versionOf(msh.field(12).s(1));
  const isError = code !== "AA" && code !== "CA";
  const e = (s: string) => escapeValue(s, d);

  const trigger = msh.field(9).s(2);
  let msgType = "ACK";
  if (trigger) msgType += d.component + e(trigger);
  if (trigger && atLeast(version, 2, 3, 1)) msgType += `${d.component}ACK`;
  const when = options?.dateTime;
  const dtm = typeof when === "string" ? when : formatDtm(when ?? new Date());

  const mshFields = [
    "MSH",
    d.field,
    msh.fields[2] ?? "",
    msh.fields[5] ?? "", // MSH-3 sending application = incoming receiving application
    msh.fields[6] ?? "", // MSH-4 = incoming MSH-6
    msh.fields[3] ?? "", // MSH-5 = incoming MSH-3
    msh.fields[4] ?? "", // MSH-6 = incoming MSH-4
    e(dtm),
    "",
    msgType,
    e(options?.controlId ?? randomControlId()),
    msh.fields[11] || "P",
    msh.fields[12] ?? "",
  ];
  const charset = msh.fields[18];
  if (charset) {
    while (mshFields.length < 18) mshFields.push("");
    mshFields.push(charset);
  }
  const segments = [new Hl7Segment(mshFields, d)];

  const msa = ["MSA", code, msh.fields[10] ?? ""];
  const textInMsa = text !== undefined && text !== "" && !atLeast(version, 2, 7);
  if (textInMsa) msa.push(e(text.slice(0, 80)));
  segments.push(new Hl7Segment(msa, d));

  const all: AckError[] = [...(errors ?? [])];
  if (text && !textInMsa && all.length === 0) all.push({ code: isError ? "207" : "0", severity: isError ? "E" : "I", text });
  for (const err of all) segments.push(errSegment(err, isError, version, d));
  return new Hl7Message(d, segments);
}

function errSegment(err: AckError, isError: boolean, version: number[], d: Delimiters): Hl7Segment {
  const e = (s: string) => escapeValue(s, d);
  const c = d.component;
  const sub = d.subcomponent ?? "&";
  const code = err.code ?? (isError ? "207" : "0");
  const codeText = HL7_ERROR_CODES[code] ?? "";
  const loc = err.location;
  const n = (x: number | undefined) => (x === undefined ? "" : String(x));
  if (!atLeast(version, 2, 5)) {
    // v2.3/2.4: ERR-1 ELD = segment ^ sequence ^ field position ^ code&text&HL70357
    const what = [e(code), e(err.text ?? codeText), "HL70357"].join(sub);
    const eld = [loc ? e(loc.segment) : "", loc ? n(loc.sequence ?? 1) : "", n(loc?.field), what];
    return new Hl7Segment(["ERR", eld.join(c)], d);
  }
  const erl = loc
    ? trimJoin([e(loc.segment), n(loc.sequence ?? 1), n(loc.field), n(loc.repetition ?? (loc.field !== undefined ? 1 : undefined)), n(loc.component), n(loc.subcomponent)], c)
    : "";
  const fields = ["ERR", "", erl, [e(code), e(codeText), "HL70357"].join(c), err.severity ?? "E", "", "", ""];
  if (err.text) fields.push(e(err.text));
  return new Hl7Segment(fields, d);
}

function trimJoin(parts: string[], sep: string): string {
  let n = parts.length;
  while (n > 0 && parts[n - 1] === "") n--;
  return parts.slice(0, n).join(sep);
}

/** What an answer to a sent message says: MSA-1, MSA-2 and the reason (MSA-3, else ERR-8 or ERR-3.2). */
export interface AckReading {
  code: string;
  controlId: string;
  reason: string;
}

/** Reads an ACK; throws Hl7ParseError for text that is not HL7 and a plain Error when there is no MSA. */
export function readAck(raw: string): AckReading {
  const ack = parseMessage(raw);
  const msa = ack.segment("MSA");
  if (!msa) throw new Error("The receiver's answer has no MSA segment");
  const err = ack.segment("ERR");
  return { code: msa.field(1).value, controlId: msa.field(2).value, reason: msa.field(3).value || err?.field(8).value || err?.field(3).comp(2).value || "" };
}
