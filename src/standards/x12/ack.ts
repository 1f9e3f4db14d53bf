// Acknowledgments of a received interchange: a TA1 for its envelope and one 999
// (005010X231A1) per functional group, with AK2/IK3/IK4/IK5 for each set and AK9 for the
// group. The codes come from one table per level, keyed on our issue codes.

import { envelope } from "./build";
import { X12Error, type X12ErrorCode } from "./errors";
import { composite, type Delimiters, el, type Interchange, type Segment, segment } from "./model";
import type { ReadGroup, ReadInterchange, ReadTransaction, X12Read } from "./read";

export const ACK_999_VERSION = "005010X231A1";

/** IK304 (segment syntax error) for segment-level issues. */
const IK3_CODE: Partial<Record<X12ErrorCode, string>> = {
  BAD_SEGMENT_ID: "1",
  UNRECOGNIZED_SEGMENT: "1",
  UNEXPECTED_SEGMENT: "2",
  MISSING_SEGMENT: "3",
  SEGMENT_REPEATED: "5",
};

/** IK403 (element syntax error); their segment gets IK304 "8". */
const IK4_CODE: Partial<Record<X12ErrorCode, string>> = {
  MISSING_ELEMENT: "1",
  TOO_MANY_ELEMENTS: "3",
  BAD_CODE: "7",
  BAD_DATE: "8",
  BAD_HL_PARENT: "7",
  TOO_MANY_REPETITIONS: "12",
  ELEMENT_NOT_USED: "I10",
};

/** IK502 (transaction set syntax error) for set-level issues. */
const IK5_CODE: Partial<Record<X12ErrorCode, string>> = {
  UNSUPPORTED_SET: "1",
  MISSING_SE: "2",
  SE_CONTROL_MISMATCH: "3",
  SE_COUNT_MISMATCH: "4",
};

/** AK905 (functional group syntax error). */
const AK9_CODE: Partial<Record<X12ErrorCode, string>> = {
  BAD_CODE: "2", // GS08 not the version of the sets
  MISSING_GE: "3",
  GE_CONTROL_MISMATCH: "4",
  GE_COUNT_MISMATCH: "5",
};

/** TA105 (interchange note code). */
const TA1_CODE: Partial<Record<X12ErrorCode, string>> = {
  IEA_CONTROL_MISMATCH: "001",
  IEA_COUNT_MISMATCH: "021",
  MISSING_IEA: "023",
  UNEXPECTED_ENVELOPE: "024",
};

/** AK2...IK5 for one set; answers whether it was accepted. */
function setResponse(t: ReadTransaction): { segments: Segment[]; accepted: boolean } {
  const out: Segment[] = [segment("AK2", el(t.tx.st, 1), el(t.tx.st, 2), el(t.tx.st, 3))];
  const setCodes = new Set<string>();
  // IK3 once per segment position, its IK4s after it.
  const bySegment = new Map<string, { ik3: Segment; ik4: Segment[] }>();
  for (const e of t.issues) {
    const setCode = IK5_CODE[e.code];
    if (setCode) {
      setCodes.add(setCode);
      continue;
    }
    const ik4 = IK4_CODE[e.code];
    const ik3 = ik4 ? "8" : (IK3_CODE[e.code] ?? "8");
    const key = `${e.positionInSet}|${e.segmentId}|${ik4 ? "8" : ik3}`;
    let entry = bySegment.get(key);
    if (!entry) {
      entry = { ik3: segment("IK3", e.segmentId ?? "", e.positionInSet ?? "", e.loop && e.loop !== "HEADER" ? e.loop : undefined, ik3), ik4: [] };
      bySegment.set(key, entry);
    }
    if (ik4 && e.element !== undefined) entry.ik4.push(segment("IK4", composite(String(e.element), e.component === undefined ? undefined : String(e.component)), undefined, ik4));
  }
  for (const { ik3, ik4 } of bySegment.values()) out.push(ik3, ...ik4);
  if (bySegment.size) setCodes.add("5");
  const accepted = setCodes.size === 0;
  out.push(segment("IK5", accepted ? "A" : "R", ...[...setCodes].slice(0, 5)));
  return { segments: out, accepted };
}

/** The body of the 999 answering one functional group. */
export function ack999Body(g: ReadGroup): Segment[] {
  const body: Segment[] = [segment("AK1", el(g.group.gs, 1), el(g.group.gs, 6), el(g.group.gs, 8))];
  let accepted = 0;
  for (const t of g.transactions) {
    const r = setResponse(t);
    body.push(...r.segments);
    if (r.accepted) accepted++;
  }
  const groupCodes = [...new Set(g.issues.map((e) => AK9_CODE[e.code] ?? "").filter(Boolean))];
  const received = g.transactions.length;
  const status = groupCodes.length || accepted === 0 ? "R" : accepted < received ? "P" : "A";
  body.push(segment("AK9", status, el(g.group.ge, 1) || received, received, accepted, ...groupCodes.slice(0, 5)));
  return body;
}

/** The TA1 answering an interchange envelope. */
export function ta1For(r: ReadInterchange): Segment {
  const isa = r.interchange.isa;
  const codes = r.issues.map((e) => TA1_CODE[e.code]).filter((c): c is string => c !== undefined);
  return segment("TA1", isa.elements[12], isa.elements[8], isa.elements[9], codes.length ? "R" : "A", codes[0] ?? "000");
}

/**
 * The sender's delimiters, with a repetition separator when theirs had none (4010: the answer
 * is 00501) that is neither one of them nor in any value the answer quotes back.
 */
function withRepetition(d: Delimiters, quoted: string[]): Delimiters {
  if (d.repetition) return d;
  const used = [d.element, d.component, d.segment];
  const free = REPETITION_CANDIDATES.find((c) => !used.includes(c) && !quoted.some((v) => v.includes(c)));
  if (!free) throw new X12Error("DELIMITER_IN_DATA", "no repetition separator is free for the acknowledgment: the quoted values use every candidate");
  return { ...d, repetition: free };
}

const REPETITION_CANDIDATES = ["^", "{", "}", "!", "|", "`", "\\", "#", "@"];

/** The values of a received interchange an acknowledgment writes back. */
function quotedValues(r: ReadInterchange): string[] {
  return [...r.interchange.isa.elements.slice(0, 10), ...r.groups.flatMap((g) => [...g.group.gs.elements, ...g.transactions.flatMap((t) => [...t.tx.st.elements, ...t.issues.map((e) => e.segmentId ?? ""), ...t.issues.map((e) => e.loop ?? "")])])];
}

export interface AckOptions {
  /** Control number of the first answering interchange; the next ones count up. */
  control: number;
  at?: Date;
  /** Add a TA1 even when the sender did not ask (ISA14 = 0) and the envelope is fine. */
  alwaysTa1?: boolean;
}

/**
 * One answering interchange per received one, from the receiver back to the sender: a TA1
 * when asked for (ISA14 = 1) or when the envelope has errors, and a 999 per group.
 */
export function acknowledge(read: X12Read, options: AckOptions): Interchange[] {
  return read.interchanges.map((r, i) => {
    const isa = r.interchange.isa;
    const parties = {
      senderQualifier: isa.elements[6]!.trim(),
      sender: isa.elements[7]!.trim(),
      receiverQualifier: isa.elements[4]!.trim(),
      receiver: isa.elements[5]!.trim(),
      control: options.control + i,
      at: options.at,
      delimiters: withRepetition(r.interchange.delimiters, quotedValues(r)),
    };
    const sets = r.groups.map((g) => ({ set: "999", version: ACK_999_VERSION, body: ack999Body(g) }));
    const ta1 = ta1For(r);
    const wantTa1 = options.alwaysTa1 || el(isa, 14) === "1" || el(ta1, 4) !== "A";
    if (!sets.length) {
      const ix = envelope([{ set: "999", version: ACK_999_VERSION, body: [] }], parties);
      return { ...ix, groups: [], ta1: [ta1] };
    }
    const ix = envelope(sets, parties);
    return wantTa1 ? { ...ix, ta1: [ta1] } : ix;
  });
}
