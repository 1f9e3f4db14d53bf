// Writes interchanges. Control numbers are the caller's (they must be unique per sender);
// the trailers' counts (SE01, GE01, IEA01) are always computed, never taken from input.
// A value holding a character chosen as a delimiter is refused, not escaped: X12 has no
// escape, so writing it would corrupt the interchange.

import { X12Error } from "./errors";
import { type LoopNode, isLoopNode } from "./loops";
import { COMPONENT, type Delimiters, type Interchange, REPETITION, type Segment, segment, type X12Document } from "./model";

export const DEFAULT_DELIMITERS: Delimiters = { element: "*", component: ":", repetition: "^", segment: "~" };

export interface WriteOptions {
  delimiters?: Delimiters;
  /** Written after each segment terminator ("\n" for readable files); default none. */
  separator?: string;
}

/** A segment's text with the chosen delimiters. */
export function writeSegment(s: Segment, d: Delimiters): string {
  const forbidden = [d.element, d.component, d.segment, ...(d.repetition ? [d.repetition] : [])];
  let out = s.id;
  for (const [i, v] of s.elements.entries()) {
    for (const ch of forbidden) {
      if (v.includes(ch)) throw new X12Error("DELIMITER_IN_DATA", `${s.id}${String(i + 1).padStart(2, "0")} '${v.replaceAll(COMPONENT, ":")}' holds '${ch}', a delimiter of this interchange`, { segmentIndex: s.index >= 0 ? s.index : undefined, segmentId: s.id, element: i + 1 });
    }
    let text = v.includes(COMPONENT) ? v.replaceAll(COMPONENT, d.component) : v;
    if (text.includes(REPETITION)) {
      if (!d.repetition) throw new X12Error("DELIMITER_IN_DATA", `${s.id}${String(i + 1).padStart(2, "0")} repeats but the interchange has no repetition separator`, { segmentId: s.id, element: i + 1 });
      text = text.replaceAll(REPETITION, d.repetition);
    }
    out += d.element + text;
  }
  return out + d.segment;
}

/** The segments of a loop tree in order (the trigger of each loop first). */
export function flatten(node: LoopNode, into: Segment[] = []): Segment[] {
  for (const c of node.children) {
    if (isLoopNode(c)) flatten(c, into);
    else into.push(c);
  }
  return into;
}

const ISA_WIDTHS = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1];

/** The delimiters an interchange can carry: before version 00501 ISA11 is the standards id "U", so there is no repetition separator. */
export function delimitersFor(isa: Segment, d: Delimiters): Delimiters {
  if ((isa.elements[11] ?? "") < "00501") return { element: d.element, component: d.component, segment: d.segment };
  if (!d.repetition) throw new X12Error("BAD_BUILD_INPUT", "a 00501 interchange needs a repetition separator (ISA11)", { segmentId: "ISA", element: 11 });
  return d;
}

/** The ISA with every element padded to its width and ISA11/ISA16 set to the chosen separators. */
export function writeIsa(isa: Segment, delimiters: Delimiters): string {
  const d = delimitersFor(isa, delimiters);
  const e = ISA_WIDTHS.map((w, i) => {
    let v = (isa.elements[i] ?? "").trimEnd();
    if (i === 10) v = d.repetition ?? "U";
    if (i === 15) v = d.component;
    if (v.length > w) throw new X12Error("BAD_BUILD_INPUT", `ISA${String(i + 1).padStart(2, "0")} '${v}' is longer than ${w} characters`, { segmentId: "ISA", element: i + 1 });
    const clash = i < 10 || (i > 10 && i < 15) ? [d.element, d.component, d.segment, d.repetition].find((c) => c !== undefined && v.includes(c)) : undefined;
    if (clash) throw new X12Error("DELIMITER_IN_DATA", `ISA${String(i + 1).padStart(2, "0")} '${v}' holds '${clash}', a delimiter of this interchange`, { segmentId: "ISA", element: i + 1 });
    // Numeric fields (ISA13 control number) pad with zeros, the others with spaces.
    return i === 12 ? v.padStart(w, "0") : v.padEnd(w, " ");
  });
  return `ISA${d.element}${e.join(d.element)}${d.segment}`;
}

/** Writes interchanges; SE01/GE01/IEA01 are counted and SE02/GE02/IEA02 copied from ST02/GS06/ISA13. */
export function writeX12(doc: X12Document, options: WriteOptions = {}): string {
  const sep = options.separator ?? "";
  const out: string[] = [];
  for (const ix of doc.interchanges) {
    const d = delimitersFor(ix.isa, options.delimiters ?? ix.delimiters);
    out.push(writeIsa(ix.isa, d));
    for (const s of ix.ta1 ?? []) out.push(writeSegment(s, d));
    for (const g of ix.groups) {
      out.push(writeSegment(g.gs, d));
      for (const tx of g.transactions) {
        out.push(writeSegment(tx.st, d));
        for (const s of tx.body) out.push(writeSegment(s, d));
        out.push(writeSegment(segment("SE", tx.body.length + 2, tx.st.elements[1]), d));
      }
      out.push(writeSegment(segment("GE", g.transactions.length, g.gs.elements[5]), d));
    }
    out.push(writeSegment(segment("IEA", ix.groups.length, ix.isa.elements[12]), d));
  }
  return out.join(sep) + (sep && out.length ? sep : "");
}

export interface EnvelopeParties {
  /** ISA05/ISA06 and GS02. */
  senderQualifier?: string;
  sender: string;
  /** ISA07/ISA08 and GS03. */
  receiverQualifier?: string;
  receiver: string;
  /** Interchange control number (ISA13/IEA02), 1..999999999. */
  control: number;
  /** Group control number (GS06/GE02); default the interchange's. */
  groupControl?: number;
  /** When the interchange is made; default now. */
  at?: Date;
  /** ISA15: P production, T test (default T). */
  usage?: "P" | "T";
  /** ISA14: ask for a TA1 (default "0"). */
  ackRequested?: "0" | "1";
  delimiters?: Delimiters;
}

/** Functional identifier code (GS01) of each transaction set. */
export const FUNCTIONAL_ID: Readonly<Record<string, string>> = { "270": "HS", "271": "HB", "276": "HR", "277": "HN", "278": "HI", "835": "HP", "837": "HC", "999": "FA" };

export interface SetToWrite {
  /** ST01. */
  set: string;
  /** ST03 and GS08. */
  version: string;
  /** Write ST03 (default true; false for the 835). */
  st03?: boolean;
  /** Segments between ST and SE, or the loop tree of a set. */
  body: Segment[] | LoopNode;
}

/** Wraps sets of one functional group in a new interchange (ISA/GS/ST...SE/GE/IEA). */
export function envelope(sets: SetToWrite[], p: EnvelopeParties): Interchange {
  if (!sets.length) throw new X12Error("BAD_BUILD_INPUT", "an interchange needs at least one transaction set");
  if (!Number.isInteger(p.control) || p.control < 1 || p.control > 999_999_999) throw new X12Error("BAD_BUILD_INPUT", `interchange control number ${p.control} is not 1..999999999`, { segmentId: "ISA", element: 13 });
  const at = p.at ?? new Date();
  const iso = at.toISOString();
  const ymd = iso.slice(0, 10).replaceAll("-", "");
  const hm = iso.slice(11, 16).replace(":", "");
  const isa = segment("ISA", "00", "", "00", "", p.senderQualifier ?? "ZZ", p.sender, p.receiverQualifier ?? "ZZ", p.receiver, ymd.slice(2), hm, "^", "00501", String(p.control).padStart(9, "0"), p.ackRequested ?? "0", p.usage ?? "T", ":");
  isa.elements = isa.elements.concat(Array(16 - isa.elements.length).fill("")).slice(0, 16);
  const version = sets[0]!.version;
  const control = String(p.groupControl ?? p.control);
  const gs = segment("GS", FUNCTIONAL_ID[sets[0]!.set] ?? "", p.sender, p.receiver, ymd, hm, control, "X", version);
  const transactions = sets.map((s, i) => ({
    st: segment("ST", s.set, String(i + 1).padStart(4, "0"), s.st03 === false ? undefined : s.version),
    body: Array.isArray(s.body) ? s.body : flatten(s.body).slice(0),
  }));
  return { isa, delimiters: p.delimiters ?? DEFAULT_DELIMITERS, groups: [{ gs, transactions }] };
}
