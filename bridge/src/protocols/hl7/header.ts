// The bridge's view of an HL7 v2 message: its MSH header and the commit ACK it gets back.
// Parsing and ACK construction are src/hl7v2's; only the bridge's policy (which code, when) lives here.
import { type AckCode, buildAck as buildHl7Ack, type AckError, type AckSource } from "../../../../src/standards/hl7v2/ack";
import { Hl7ParseError } from "../../../../src/standards/hl7v2/errors";
import { DEFAULT_DELIMITERS, type Delimiters } from "../../../../src/standards/hl7v2/escape";
import { Hl7Segment } from "../../../../src/standards/hl7v2/message";
import { readMsh } from "../../../../src/standards/hl7v2/parse";

export type { AckCode, Delimiters };

/** The MSH fields the bridge needs; values are the raw field text (components not split). */
export interface MshHeader {
  delimiters: Delimiters;
  /** MSH-2 exactly as sent, echoed in the ACK so the sender sees its own encoding characters. */
  encodingCharacters: string;
  sendingApplication: string; // MSH-3
  sendingFacility: string; // MSH-4
  receivingApplication: string; // MSH-5
  receivingFacility: string; // MSH-6
  messageType: string; // MSH-9, e.g. "ADT^A01^ADT_A01"
  triggerEvent: string; // MSH-9.2
  controlId: string; // MSH-10
  processingId: string; // MSH-11
  version: string; // MSH-12
  acceptAckType: string; // MSH-15 (AL, NE, ER, SU); non-empty means enhanced acknowledgment mode
  /** The parsed MSH, handed to src/hl7v2's ACK builder. */
  source: MshSource;
}

/** What src/hl7v2's readMsh returns: the delimiters and the MSH segment alone. */
export type MshSource = ReturnType<typeof readMsh>;

export type HeaderResult = { ok: true; header: MshHeader } | { ok: false; error: string };

/** Reads the MSH segment at the start of `text` (segments separated by \r, BOM already removed). */
export function readHeader(text: string): HeaderResult {
  // src/hl7v2 would find an MSH further down; the bridge refuses anything not starting with one.
  if (!text.startsWith("MSH")) return { ok: false, error: "message does not start with an MSH segment" };
  let source: MshSource;
  try {
    source = readMsh(text);
  } catch (error) {
    if (error instanceof Hl7ParseError) return { ok: false, error: error.message };
    throw error;
  }
  const { delimiters, msh } = source;
  const mshField = (n: number) => (msh.fields[n] ?? "").trim();
  return {
    ok: true,
    header: {
      delimiters,
      encodingCharacters: msh.fields[2] ?? "",
      sendingApplication: mshField(3),
      sendingFacility: mshField(4),
      receivingApplication: mshField(5),
      receivingFacility: mshField(6),
      messageType: mshField(9),
      triggerEvent: msh.field(9).s(2),
      controlId: mshField(10),
      processingId: mshField(11),
      version: mshField(12),
      acceptAckType: mshField(15).toUpperCase(),
      source,
    },
  };
}

export type AckOutcome = "accepted" | "error" | "rejected";

/**
 * Which commit ACK code answers `outcome`, or null when the sender asked for none
 * (enhanced mode: MSH-15 NE, ER on success, SU on error). `alwaysAck` overrides MSH-15
 * for senders that set it but still wait for an answer.
 */
export function ackPolicy(header: MshHeader | null, outcome: AckOutcome, alwaysAck = false): AckCode | null {
  const enhanced = header !== null && header.acceptAckType !== "";
  const code = (enhanced ? { accepted: "CA", error: "CE", rejected: "CR" } : { accepted: "AA", error: "AE", rejected: "AR" })[
    outcome
  ] as AckCode;
  if (!enhanced || alwaysAck) return code;
  const wanted = header.acceptAckType;
  if (wanted === "NE") return null;
  if (wanted === "ER" && outcome === "accepted") return null;
  if (wanted === "SU" && outcome !== "accepted") return null;
  return code;
}

export interface AckOptions {
  code: AckCode;
  /** MSH-10 of the ACK itself. */
  ackControlId: string;
  /** Why the message was not accepted; goes to MSA-3 and ERR. */
  errorText?: string;
  /** HL7 table 0357 code, e.g. "100" segment sequence error, "207" application internal error. */
  errorCode?: string;
  now?: Date;
}

/** Version the bridge answers in when the sender's MSH is missing or stops before MSH-12. */
const FALLBACK_VERSION = "2.5";

/** Builds an ACK (segments separated by \r, ending with \r). `header` is null when the message had no readable MSH. */
export function buildAck(header: MshHeader | null, options: AckOptions): string {
  const errors: AckError[] | undefined =
    options.errorText === undefined ? undefined : [{ code: options.errorCode ?? "207", text: options.errorText }];
  const ack = buildHl7Ack(ackSource(header), options.code, options.errorText, errors, {
    controlId: options.ackControlId,
    dateTime: options.now ?? new Date(),
  });
  return ack.toString();
}

/** The header to answer; a stand-in MSH when there is none, so an AR can still be sent. */
function ackSource(header: MshHeader | null): AckSource {
  if (header === null) {
    const d: Delimiters = { ...DEFAULT_DELIMITERS };
    const fields = ["MSH", d.field, "^~\\&", "", "", "", "", "", "", "", "", "P", FALLBACK_VERSION];
    return { delimiters: d, msh: new Hl7Segment(fields, d) };
  }
  if (header.version !== "") return header.source;
  // A truncated head (oversize frame) may stop before MSH-12; an ACK without a version is invalid.
  const { delimiters, msh } = header.source;
  const fields = [...msh.fields];
  while (fields.length < 13) fields.push("");
  fields[12] = FALLBACK_VERSION;
  return { delimiters, msh: new Hl7Segment(fields, delimiters) };
}
