// Reads X12 text into interchanges, groups and transaction sets. Delimiters come from each
// ISA (fixed width: 106 characters with its terminator), so one file may hold interchanges
// written with different ones. Whitespace and line breaks between segments, and a UTF-8
// byte-order mark, are skipped. Problems that still leave a readable structure (a missing
// IEA, GE or SE, a segment outside its envelope) are returned as issues; only text that
// has no usable ISA throws.

import { X12Error } from "./errors";
import { COMPONENT, type Delimiters, type FunctionalGroup, type Interchange, REPETITION, type Segment, type TransactionSet, type X12Document } from "./model";

/** Widths of ISA01..ISA16. */
const ISA_WIDTHS = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1];
export const ISA_LENGTH = 106;
/** ISA09 date, ISA10 time, ISA13 control number: digits of fixed width. */
const NUMERIC_ISA: readonly [number, RegExp, string][] = [
  [9, /^\d{6}$/, "a date (YYMMDD)"],
  [10, /^\d{4}$/, "a time (HHMM)"],
  [13, /^\d{9}$/, "a 9-digit control number"],
];
const SEGMENT_ID = /^[A-Z0-9]{2,3}$/;
const BLANK = new Set([" ", "\t", "\r", "\n"]);

export interface Tokenized {
  document: X12Document;
  issues: X12Error[];
}

/** Reads the delimiters of the ISA starting at `start`; throws BAD_ISA naming the element that is off. */
export function readIsa(text: string, start: number, index: number): { isa: Segment; delimiters: Delimiters } {
  const element = text[start + 3] ?? "";
  if (!element || /[A-Za-z0-9 ]/.test(element)) throw new X12Error("BAD_ISA", `ISA element separator '${element}' is missing or alphanumeric`, { segmentIndex: index, segmentId: "ISA", element: 1 });
  let at = start + 3;
  const elements: string[] = [];
  for (const [i, width] of ISA_WIDTHS.entries()) {
    if (text[at] !== element) throw new X12Error("BAD_ISA", `ISA${String(i).padStart(2, "0")} must be ${ISA_WIDTHS[i - 1]} characters wide (the ISA is fixed width, 106 characters with its terminator)`, { segmentIndex: index, segmentId: "ISA", element: i });
    elements.push(text.slice(at + 1, at + 1 + width));
    at += 1 + width;
  }
  const segmentTerminator = text[at] ?? "";
  const component = elements[15]!;
  if (!segmentTerminator) throw new X12Error("BAD_ISA", "the ISA ends before its segment terminator (106 characters expected)", { segmentIndex: index, segmentId: "ISA", element: 16 });
  const delims = [element, component, segmentTerminator];
  if (/[A-Za-z0-9]/.test(component) || new Set(delims).size !== 3) throw new X12Error("BAD_ISA", `ISA16 component separator '${component}' or terminator '${segmentTerminator}' is alphanumeric or repeats another delimiter`, { segmentIndex: index, segmentId: "ISA", element: 16 });
  // ISA11 is the repetition separator from 00501 on; before, it is the standards id "U".
  const repetition = elements[11]! >= "00501" ? elements[10] : undefined;
  if (repetition !== undefined && (/[A-Za-z0-9 ]/.test(repetition) || delims.includes(repetition))) {
    throw new X12Error("BAD_ISA", `ISA11 repetition separator '${repetition}' is alphanumeric or repeats another delimiter`, { segmentIndex: index, segmentId: "ISA", element: 11 });
  }
  // Values a TA1 quotes back must be what X12 says they are; no value may hold a delimiter.
  for (const [n, pattern, what] of NUMERIC_ISA) {
    if (!pattern.test(elements[n - 1]!)) throw new X12Error("BAD_ISA", `ISA${String(n).padStart(2, "0")} '${elements[n - 1]}' is not ${what}`, { segmentIndex: index, segmentId: "ISA", element: n });
  }
  for (const [i, v] of elements.slice(0, 15).entries()) {
    if (i === 10) continue;
    const bad = [element, component, segmentTerminator, repetition].find((d) => d !== undefined && v.includes(d));
    if (bad) throw new X12Error("BAD_ISA", `ISA${String(i + 1).padStart(2, "0")} holds '${bad}', a delimiter of this interchange`, { segmentIndex: index, segmentId: "ISA", element: i + 1 });
  }
  return { isa: { id: "ISA", elements, index }, delimiters: { element, component, repetition, segment: segmentTerminator } };
}

/** Splits one segment's text into id and canonical element values. */
function splitSegment(raw: string, d: Delimiters, index: number): Segment {
  let text = raw;
  if (text.includes(d.component)) text = text.replaceAll(d.component, COMPONENT);
  if (d.repetition && text.includes(d.repetition)) text = text.replaceAll(d.repetition, REPETITION);
  const parts = text.split(d.element);
  return { id: parts[0]!, elements: parts.slice(1), index };
}

function skipBlank(text: string, pos: number, keep: string): number {
  while (pos < text.length && BLANK.has(text[pos]!) && text[pos] !== keep) pos++;
  return pos;
}

/** Reads every interchange of `text`. Throws X12Error (EMPTY, NO_ISA, BAD_ISA) when there is nothing it can read. */
export function tokenize(text: string): Tokenized {
  const issues: X12Error[] = [];
  const interchanges: Interchange[] = [];
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  pos = skipBlank(text, pos, "");
  if (pos >= text.length) throw new X12Error("EMPTY", "no X12 content");
  let index = 0;
  while (pos < text.length) {
    if (!text.startsWith("ISA", pos)) {
      const found = text.slice(pos, pos + 20).replace(/\s+/g, " ");
      throw new X12Error("NO_ISA", `expected an ISA segment, found '${found}'`, { segmentIndex: index });
    }
    const { isa, delimiters } = readIsa(text, pos, index++);
    const ix: Interchange = { isa, delimiters, groups: [] };
    interchanges.push(ix);
    pos += ISA_LENGTH;
    let group: FunctionalGroup | undefined;
    let tx: TransactionSet | undefined;
    const closeTx = (at: Segment) => {
      if (tx && !tx.se) issues.push(new X12Error("MISSING_SE", `transaction set ${tx.st.elements[1] ?? ""} (ST at segment ${tx.st.index}) has no SE before ${at.id} at segment ${at.index}`, { segmentIndex: tx.st.index, segmentId: "ST" }));
      tx = undefined;
    };
    const closeGroup = (at: Segment) => {
      closeTx(at);
      if (group && !group.ge) issues.push(new X12Error("MISSING_GE", `functional group ${group.gs.elements[5] ?? ""} (GS at segment ${group.gs.index}) has no GE before ${at.id} at segment ${at.index}`, { segmentIndex: group.gs.index, segmentId: "GS" }));
      group = undefined;
    };
    while (pos < text.length && !ix.iea) {
      pos = skipBlank(text, pos, delimiters.segment);
      if (pos >= text.length) break;
      if (text.startsWith("ISA", pos) && text[pos + 3] !== undefined && !/[A-Z0-9]/.test(text[pos + 3]!)) break; // next interchange, this one lacks its IEA
      let end = text.indexOf(delimiters.segment, pos);
      if (end < 0) end = text.length;
      let raw = text.slice(pos, end);
      pos = end + 1;
      while (raw.endsWith("\n") || raw.endsWith("\r")) raw = raw.slice(0, -1);
      if (!raw) continue;
      const seg = splitSegment(raw, delimiters, index++);
      if (!SEGMENT_ID.test(seg.id)) {
        issues.push(new X12Error("BAD_SEGMENT_ID", `'${seg.id.slice(0, 10)}' is not a segment id`, { segmentIndex: seg.index, segmentId: seg.id.slice(0, 3) }));
        if (tx) tx.body.push(seg);
        continue;
      }
      switch (seg.id) {
        case "GS":
          closeGroup(seg);
          group = { gs: seg, transactions: [] };
          ix.groups.push(group);
          break;
        case "GE":
          closeTx(seg);
          if (group) group.ge = seg;
          else issues.push(new X12Error("UNEXPECTED_ENVELOPE", "GE without a GS", { segmentIndex: seg.index, segmentId: "GE" }));
          group = undefined;
          break;
        case "ST":
          closeTx(seg);
          if (!group) issues.push(new X12Error("UNEXPECTED_ENVELOPE", "ST outside a functional group (no GS before it)", { segmentIndex: seg.index, segmentId: "ST" }));
          tx = { st: seg, body: [] };
          group?.transactions.push(tx);
          break;
        case "SE":
          if (tx) tx.se = seg;
          else issues.push(new X12Error("UNEXPECTED_ENVELOPE", "SE without an ST", { segmentIndex: seg.index, segmentId: "SE" }));
          tx = undefined;
          break;
        case "IEA":
          closeGroup(seg);
          ix.iea = seg;
          break;
        case "TA1":
          if (!group) {
            ix.ta1 = [...(ix.ta1 ?? []), seg];
            break;
          }
          if (tx) tx.body.push(seg);
          else issues.push(new X12Error("UNEXPECTED_ENVELOPE", "TA1 inside a functional group", { segmentIndex: seg.index, segmentId: seg.id }));
          break;
        default:
          if (tx) tx.body.push(seg);
          else issues.push(new X12Error("UNEXPECTED_ENVELOPE", `${seg.id} outside a transaction set (between envelopes)`, { segmentIndex: seg.index, segmentId: seg.id }));
      }
    }
    if (!ix.iea) {
      const last: Segment = { id: "IEA", elements: [], index };
      closeGroup(last);
      issues.push(new X12Error("MISSING_IEA", `interchange ${isa.elements[12]} (ISA at segment ${isa.index}) ends without an IEA`, { segmentIndex: isa.index, segmentId: "ISA" }));
    }
    pos = skipBlank(text, pos, "");
  }
  return { document: { interchanges }, issues };
}
