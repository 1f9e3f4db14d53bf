// HL7 v2 parsing: one message, a batch file (FHS/BHS/.../BTS/FTS), or only the
// MSH header (what the MLLP bridge needs to ACK a message it cannot fully parse).
// Accepts CR, LF and CRLF segment terminators, a leading byte-order mark and
// stray MLLP framing bytes. Every failure is an Hl7ParseError with a code.

import { Hl7ParseError } from "./errors";
import type { Delimiters } from "./escape";
import { Hl7Message, Hl7Segment } from "./message";

const SEGMENT_NAME = /^[A-Z][A-Z0-9]{2}$/;

/** MLLP start block (0x0B) and blank before a message; end block (0x1C) and line ends after it. */
function isFraming(c: number, leading: boolean): boolean {
  if (c === 0x0d || c === 0x0a) return true;
  return leading ? c === 0x0b || c === 0x20 || c === 0x09 : c === 0x1c;
}

/** Strip a byte-order mark and MLLP framing (0x0B ... 0x1C 0x0D), then split into non-empty lines. */
/**
 * The canonical text of a received message: no byte-order mark or leading blank lines,
 * segments separated by CR whatever the sender used (CRLF, LF). Stored and forwarded as such.
 */
export function normaliseSegments(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/^\s+/, "").replace(/\r\n|\n/g, "\r");
}

export function splitSegments(text: string): string[] {
  let t = text;
  if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
  let a = 0;
  let b = t.length;
  while (a < b && isFraming(t.charCodeAt(a), true)) a++;
  while (b > a && isFraming(t.charCodeAt(b - 1), false)) b--;
  t = t.slice(a, b);
  if (t === "") return [];
  const out: string[] = [];
  for (let line of t.split(/\r\n|\r|\n/)) {
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1); // concatenated files each with a BOM
    if (line.trim() !== "") out.push(line);
  }
  return out;
}

/**
 * Delimiters declared by a header segment (MSH, FHS or BHS): the character after the
 * name is the field separator, the next field holds component, repetition, escape,
 * subcomponent and (v2.7+) truncation characters.
 */
export function parseDelimiters(headerLine: string, lineNumber = 1): Delimiters {
  const name = headerLine.slice(0, 3);
  const field = headerLine[3];
  if (field === undefined) throw new Hl7ParseError("TRUNCATED", `${name} segment ends before its field separator`, lineNumber);
  if (/[A-Za-z0-9\s]/.test(field)) throw new Hl7ParseError("BAD_DELIMITERS", `${name}-1 field separator ${JSON.stringify(field)} is not usable`, lineNumber);
  const end = headerLine.indexOf(field, 4);
  const enc = end < 0 ? headerLine.slice(4) : headerLine.slice(4, end);
  if (enc.length < 2 || enc.length > 5) {
    throw new Hl7ParseError("BAD_DELIMITERS", `${name}-2 encoding characters ${JSON.stringify(enc)} must be 2 to 5 characters`, lineNumber);
  }
  const chars = [field, ...enc];
  if (new Set(chars).size !== chars.length) {
    throw new Hl7ParseError("BAD_DELIMITERS", `${name}-1/${name}-2 delimiters ${JSON.stringify(field + enc)} repeat a character`, lineNumber);
  }
  if (/[A-Za-z0-9\s]/.test(enc)) {
    throw new Hl7ParseError("BAD_DELIMITERS", `${name}-2 encoding characters ${JSON.stringify(enc)} contain a letter, digit or space`, lineNumber);
  }
  const d: Delimiters = { field, component: enc[0]!, repetition: enc[1]! };
  if (enc[2] !== undefined) d.escape = enc[2];
  if (enc[3] !== undefined) d.subcomponent = enc[3];
  if (enc[4] !== undefined) d.truncation = enc[4];
  return d;
}

function headerSegment(line: string, d: Delimiters): Hl7Segment {
  const parts = line.split(d.field);
  // parts[0] = name, parts[1] = encoding characters; MSH-1 is the separator itself.
  return new Hl7Segment([parts[0]!, d.field, ...parts.slice(1)], d);
}

function segmentOf(line: string, d: Delimiters, lineNumber: number): Hl7Segment {
  const name = line.slice(0, 3);
  if (!SEGMENT_NAME.test(name) || (line.length > 3 && line[3] !== d.field)) {
    throw new Hl7ParseError("BAD_SEGMENT", `line ${lineNumber} is not a segment: ${JSON.stringify(line.slice(0, 20))}`, lineNumber);
  }
  if (name === "MSH" || name === "FHS" || name === "BHS") {
    const own = parseDelimiters(line, lineNumber);
    if (own.field !== d.field || own.component !== d.component || own.repetition !== d.repetition) {
      throw new Hl7ParseError("BAD_DELIMITERS", `${name} on line ${lineNumber} declares other delimiters than its batch`, lineNumber);
    }
    return headerSegment(line, d);
  }
  return new Hl7Segment(line.split(d.field), d);
}

function checkMsh(msh: Hl7Segment, lineNumber: number): void {
  if (msh.length < 12 || msh.field(9).isEmpty) {
    throw new Hl7ParseError("TRUNCATED", `MSH on line ${lineNumber} ends before MSH-12 (has ${msh.length} fields) or lacks MSH-9`, lineNumber);
  }
}

export interface ParseOptions {
  /** Accept a header with fewer than 12 fields (default false). */
  allowShortHeader?: boolean;
}

function buildMessage(lines: string[], firstLine: number, options?: ParseOptions): Hl7Message {
  const first = lines[0];
  if (first === undefined) throw new Hl7ParseError("EMPTY", "no segments");
  if (!first.startsWith("MSH")) {
    throw new Hl7ParseError("NO_MSH", `a message must start with MSH, found ${JSON.stringify(first.slice(0, 20))}`, firstLine);
  }
  const d = parseDelimiters(first, firstLine);
  const msh = headerSegment(first, d);
  if (!options?.allowShortHeader) checkMsh(msh, firstLine);
  const segments = [msh];
  for (let i = 1; i < lines.length; i++) segments.push(segmentOf(lines[i]!, d, firstLine + i));
  return new Hl7Message(d, segments);
}

/** Parse one message. A text holding several messages or a batch is refused (BAD_BATCH): use parseBatch. */
export function parseMessage(text: string, options?: ParseOptions): Hl7Message {
  if (typeof text !== "string") throw new Hl7ParseError("EMPTY", "input is not text");
  const lines = splitSegments(text);
  if (lines.length === 0) throw new Hl7ParseError("EMPTY", "the message is empty");
  const header = lines[0]!.slice(0, 3);
  if (header === "FHS" || header === "BHS") throw new Hl7ParseError("BAD_BATCH", "the text is a batch: use parseBatch", 1);
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.startsWith("MSH")) throw new Hl7ParseError("BAD_BATCH", `a second MSH on line ${i + 1}: use parseBatch`, i + 1);
  }
  return buildMessage(lines, 1, options);
}

export interface Hl7BatchGroup {
  header?: Hl7Segment;
  messages: Hl7Message[];
  trailer?: Hl7Segment;
}

export interface Hl7Batch {
  fileHeader?: Hl7Segment;
  batches: Hl7BatchGroup[];
  fileTrailer?: Hl7Segment;
  /** All messages in order, across batches. */
  messages: Hl7Message[];
  /** Count mismatches (BTS-1, FTS-1) and other recoverable oddities. */
  warnings: string[];
}

/**
 * Parse a batch file: [FHS] { [BHS] { MSH... } [BTS] } [FTS]. Plain concatenated
 * messages (no FHS/BHS) and a single message are accepted too.
 */
export function parseBatch(text: string, options?: ParseOptions): Hl7Batch {
  if (typeof text !== "string") throw new Hl7ParseError("EMPTY", "input is not text");
  const lines = splitSegments(text);
  if (lines.length === 0) throw new Hl7ParseError("EMPTY", "the batch is empty");
  const first = lines[0]!.slice(0, 3);
  if (first !== "FHS" && first !== "BHS" && first !== "MSH") {
    throw new Hl7ParseError("NO_MSH", `a batch must start with FHS, BHS or MSH, found ${JSON.stringify(lines[0]!.slice(0, 20))}`, 1);
  }
  const d = parseDelimiters(lines[0]!, 1);
  const out: Hl7Batch = { batches: [], messages: [], warnings: [] };
  let group: Hl7BatchGroup | undefined;
  let pending: { lines: string[]; start: number } | undefined;
  const flush = () => {
    if (!pending) return;
    const m = buildMessage(pending.lines, pending.start, options);
    if (!group) {
      group = { messages: [] };
      out.batches.push(group);
    }
    group.messages.push(m);
    out.messages.push(m);
    pending = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const n = i + 1;
    const name = line.slice(0, 3);
    switch (name) {
      case "FHS":
        if (i !== 0) throw new Hl7ParseError("BAD_BATCH", `FHS must be the first segment (line ${n})`, n);
        out.fileHeader = segmentOf(line, d, n);
        break;
      case "BHS":
        flush();
        if (group && !group.trailer && (group.header || group.messages.length > 0)) out.warnings.push(`batch ending before line ${n} has no BTS`);
        group = { header: segmentOf(line, d, n), messages: [] };
        out.batches.push(group);
        break;
      case "BTS": {
        flush();
        if (!group) throw new Hl7ParseError("BAD_BATCH", `BTS without a batch (line ${n})`, n);
        group.trailer = segmentOf(line, d, n);
        const declared = group.trailer.field(1).value;
        if (declared !== "" && Number(declared) !== group.messages.length) {
          out.warnings.push(`BTS-1 says ${declared} messages, the batch has ${group.messages.length}`);
        }
        group = undefined;
        break;
      }
      case "FTS": {
        flush();
        out.fileTrailer = segmentOf(line, d, n);
        const declared = out.fileTrailer.field(1).value;
        if (declared !== "" && Number(declared) !== out.batches.length) {
          out.warnings.push(`FTS-1 says ${declared} batches, the file has ${out.batches.length}`);
        }
        if (i !== lines.length - 1) throw new Hl7ParseError("BAD_BATCH", `segments after FTS (line ${n + 1})`, n + 1);
        break;
      }
      case "MSH":
        flush();
        pending = { lines: [line], start: n };
        break;
      default:
        if (!pending) throw new Hl7ParseError("NO_MSH", `segment ${JSON.stringify(name)} outside a message (line ${n})`, n);
        pending.lines.push(line);
    }
  }
  flush();
  if (out.fileHeader && !out.fileTrailer) out.warnings.push("FHS without FTS");
  return out;
}

/** Every message in a text, whether it is one message, several, or a batch file. */
export function parseMessages(text: string, options?: ParseOptions): Hl7Message[] {
  return parseBatch(text, options).messages;
}

/**
 * Read only the header of a message: delimiters and MSH, even when the rest of the
 * message would not parse. For ACKing (AR/CR) what cannot be parsed fully.
 */
export function readMsh(text: string): { delimiters: Delimiters; msh: Hl7Segment } {
  if (typeof text !== "string") throw new Hl7ParseError("EMPTY", "input is not text");
  const lines = splitSegments(text);
  const first = lines.findIndex((l) => l.startsWith("MSH"));
  if (lines.length === 0) throw new Hl7ParseError("EMPTY", "the message is empty");
  if (first < 0) throw new Hl7ParseError("NO_MSH", "no MSH segment");
  const delimiters = parseDelimiters(lines[first]!, first + 1);
  return { delimiters, msh: headerSegment(lines[first]!, delimiters) };
}
