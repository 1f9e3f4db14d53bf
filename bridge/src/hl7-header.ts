// The bridge's only knowledge of HL7 v2: read the MSH header and build a commit ACK.
// Kept narrow (readHeader, ackPolicy, buildAck) so it can later delegate to src/hl7v2/.

export interface Delimiters {
  field: string;
  component: string;
  repetition: string;
  escape: string;
  subcomponent: string;
}

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
}

export type HeaderResult = { ok: true; header: MshHeader } | { ok: false; error: string };

/** Reads the MSH segment at the start of `text` (segments separated by \r, BOM already removed). */
export function readHeader(text: string): HeaderResult {
  if (!text.startsWith("MSH")) return { ok: false, error: "message does not start with an MSH segment" };
  const field = text.charAt(3);
  if (field === "" || /[\w\s]/.test(field)) return { ok: false, error: "MSH-1 field separator is missing or invalid" };
  const segmentEnd = text.indexOf("\r");
  const msh = segmentEnd < 0 ? text : text.slice(0, segmentEnd);
  const parts = msh.split(field);
  const encodingCharacters = parts[1] ?? "";
  const [component, repetition, escapeChar, subcomponent] = encodingCharacters;
  const distinct = new Set([field, ...encodingCharacters.slice(0, 4)]);
  if (
    encodingCharacters.length < 4 ||
    encodingCharacters.length > 5 ||
    distinct.size !== 5 ||
    /[\w\s]/.test(encodingCharacters) ||
    !component ||
    !repetition ||
    !escapeChar ||
    !subcomponent
  ) {
    return { ok: false, error: "MSH-2 encoding characters are missing or invalid" };
  }
  // parts[0] is "MSH" and parts[1] is MSH-2, so MSH-n is parts[n - 1].
  const mshField = (n: number) => (parts[n - 1] ?? "").trim();
  const messageType = mshField(9);
  return {
    ok: true,
    header: {
      delimiters: { field, component, repetition, escape: escapeChar, subcomponent },
      encodingCharacters,
      sendingApplication: mshField(3),
      sendingFacility: mshField(4),
      receivingApplication: mshField(5),
      receivingFacility: mshField(6),
      messageType,
      triggerEvent: messageType.split(component)[1] ?? "",
      controlId: mshField(10),
      processingId: mshField(11),
      version: mshField(12),
      acceptAckType: mshField(15).toUpperCase(),
    },
  };
}

export type AckOutcome = "accepted" | "error" | "rejected";
export type AckCode = "AA" | "AE" | "AR" | "CA" | "CE" | "CR";

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

const DEFAULT_DELIMITERS: Delimiters = { field: "|", component: "^", repetition: "~", escape: "\\", subcomponent: "&" };

/** Builds an ACK (segments separated by \r, ending with \r). `header` is null when the message had no readable MSH. */
export function buildAck(header: MshHeader | null, options: AckOptions): string {
  const d = header?.delimiters ?? DEFAULT_DELIMITERS;
  const esc = (value: string) => escapeText(value, d);
  const version = header?.version || "2.5";
  const trigger = header?.triggerEvent ?? "";
  const messageType = trigger ? [`ACK`, trigger, "ACK"].join(d.component) : "ACK";
  const msh = [
    "MSH",
    header?.encodingCharacters ?? "^~\\&",
    header?.receivingApplication ?? "",
    header?.receivingFacility ?? "",
    header?.sendingApplication ?? "",
    header?.sendingFacility ?? "",
    hl7Timestamp(options.now ?? new Date()),
    "",
    messageType,
    esc(options.ackControlId),
    header?.processingId || "P",
    version,
  ].join(d.field);
  const msa = ["MSA", options.code, header?.controlId ?? "", esc(options.errorText ?? "")].join(d.field);
  const segments = [msh, msa];
  if (options.errorText !== undefined) {
    segments.push(errSegment(version, options.errorCode ?? "207", esc(options.errorText), d));
  }
  return `${segments.join("\r")}\r`;
}

function errSegment(version: string, code: string, text: string, d: Delimiters): string {
  const codedError = [code, text, "HL70357"];
  // ERR-3 (CWE) and ERR-4 severity exist from v2.5; older versions only have ERR-1 (ELD).
  if (compareVersion(version, "2.5") >= 0) return ["ERR", "", "", codedError.join(d.component), "E"].join(d.field);
  return ["ERR", ["", "", "", codedError.join(d.subcomponent)].join(d.component)].join(d.field);
}

function compareVersion(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] || 0) - (pb[i] || 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

function escapeText(value: string, d: Delimiters): string {
  const codes: Record<string, string> = {
    [d.escape]: "E",
    [d.field]: "F",
    [d.component]: "S",
    [d.subcomponent]: "T",
    [d.repetition]: "R",
  };
  let out = "";
  for (const ch of value.replace(/[\r\n]+/g, " ")) out += codes[ch] ? `${d.escape}${codes[ch]}${d.escape}` : ch;
  return out;
}

function hl7Timestamp(date: Date): string {
  return `${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}+0000`;
}
