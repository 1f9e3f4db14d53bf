// X12 as an inbound protocol: ISA06|GS02 is the sender (its line keeps arrival order),
// ISA13 the control number unique within it, ST01 of the first set the type and GS08 the
// implementation. The acknowledgement is the 999 per group (with a TA1 when the sender
// asked or the envelope is wrong); a file with issues is rejected with them in the 999.
import type { InboundAdapter, MessageFacts, Reading } from "../../features/inbound";
import { writeX12 } from "./build";
import { describePlace, X12Error } from "./errors";
import { el } from "./model";
import { acknowledgementText } from "./nodes/acknowledgement";
import { X12_EVENT_TYPE, x12EventAttributes } from "./event";
import { ta1For } from "./ack";
import { readX12, type X12Read } from "./read";

export const X12_PROTOCOL = "x12";

/** Transaction sets that acknowledge others. */
const ACK_SETS = new Set(["999", "997"]);

/** ST01 of the set holding the segment at `index`. */
const setAt = (read: X12Read, index: number | undefined) => el(read.transactions.find((t) => t.tx.st.index === index)?.tx.st, 1);

/** Only TA1s and acknowledgment sets: nothing to answer. */
const isAcknowledgment = (read: X12Read) => read.transactions.every((t) => ACK_SETS.has(el(t.tx.st, 1)));

const NO_FACTS: MessageFacts = { messageType: null, triggerEvent: null, version: null };
const problemOf = (e: X12Error) => ({ code: `X12_${e.code}`, message: `${e.message}${describePlace(e) ? ` (at ${describePlace(e)})` : ""}` });

function readInterchange(text: string): Reading<X12Read> {
  const raw = text.trim();
  let read: X12Read;
  try {
    read = readX12(raw);
  } catch (e) {
    if (e instanceof X12Error) return { raw, header: null, facts: NO_FACTS, problem: problemOf(e) };
    throw e;
  }
  const first = read.interchanges[0]!;
  const gs = first.groups[0]?.group.gs;
  const st = read.transactions[0]?.tx.st;
  const facts = { messageType: el(st, 1) || null, triggerEvent: el(gs, 8) || null, version: el(first.interchange.isa, 12) || null };
  // Acknowledgments (999, 997) have no loop table here but are stored and routed, not refused.
  const issues = read.issues.filter((e) => !(e.code === "UNSUPPORTED_SET" && ACK_SETS.has(setAt(read, e.segmentIndex))));
  if (issues[0]) return { raw, header: read, facts, problem: problemOf(issues[0]) };
  const control = el(first.interchange.isa, 13);
  return { raw, header: read, facts, key: { sender: `${el(first.interchange.isa, 6).trim()}|${el(gs, 2)}`, controlId: control } };
}

/**
 * Accepted and rejected files get their 999 (rejections carry the issues); a file that could not
 * be processed gets a TA1 with R (note 000) and no 999, so the sender sends it again.
 */
function acknowledgeInterchange(read: X12Read, outcome: "accepted" | "rejected" | "errored"): string {
  // An acknowledgment is never acknowledged (X12 TR3s: no 999 for a 999 or TA1).
  if (isAcknowledgment(read)) return "";
  if (outcome !== "errored") return acknowledgementText(read, { alwaysTa1: outcome === "rejected" });
  const ix = read.interchanges[0]!.interchange;
  const ta1 = ta1For(read.interchanges[0]!);
  ta1.elements[3] = "R";
  const isa = { ...ix.isa, elements: [...ix.isa.elements] };
  [isa.elements[4], isa.elements[5], isa.elements[6], isa.elements[7]] = [ix.isa.elements[6]!, ix.isa.elements[7]!, ix.isa.elements[4]!, ix.isa.elements[5]!];
  return writeX12({ interchanges: [{ isa, delimiters: ix.delimiters, ta1: [ta1], groups: [] }] });
}

export const x12InboundAdapter: InboundAdapter<X12Read> = {
  protocol: X12_PROTOCOL,
  eventType: X12_EVENT_TYPE,
  blob: { folder: "x12", extension: ".x12", mediaType: "application/edi-x12" },
  read: (text) => readInterchange(text),
  acknowledge: (header, outcome) => acknowledgeInterchange(header, outcome),
  attributes: x12EventAttributes,
};
