// MSH from the header configuration (sending and receiving application and facility,
// version, processing id, control id, time) and EVN for the families that have one.

import { Hl7EncodingError } from "../errors";
import type { Delimiters } from "../escape";
import type { Hl7Segment } from "../message";
import type { EncodeContext } from "./context";
import { hdRep } from "./datatypes";
import type { Hd } from "./systems";
import { headerSegment, hl7DateTime } from "./writer";

/** An application or facility: its namespace id, or the whole HD. */
export type HdInput = string | Hd;

export interface MshOptions {
  sendingApplication?: HdInput;
  sendingFacility?: HdInput;
  receivingApplication?: HdInput;
  receivingFacility?: HdInput;
  /** MSH-12 (default 2.5.1). */
  version?: string;
  /** MSH-11: P production, D debugging, T training (default P). */
  processingId?: string;
  /** MSH-10, or a function making one per message (default: 20 random characters). */
  controlId?: string | (() => string);
  /** MSH-7 (default now), a FHIR instant or a Date. */
  timestamp?: string | Date;
  /** MSH-15 and MSH-16 (AL, NE, ER, SU), for enhanced acknowledgment. */
  acceptAckType?: string;
  applicationAckType?: string;
  /** MSH-18, e.g. "UNICODE UTF-8". */
  characterSet?: string;
}

export const DEFAULT_VERSION = "2.5.1";
export const VERSIONS = ["2.3", "2.3.1", "2.4", "2.5", "2.5.1", "2.6", "2.7", "2.7.1", "2.8", "2.8.1", "2.8.2"] as const;

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** 20 random characters: unique enough for MSH-10, which is 20 characters at most before v2.7. */
export function randomControlId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
}

export function hdOf(v: HdInput | undefined): Hd | undefined {
  if (v === undefined) return undefined;
  return typeof v === "string" ? { namespace: v } : v;
}

/** The name the converter keys "no assigning authority" identifiers on: MSH-4.1, else MSH-4.2, else MSH-3's. */
export function facilityName(msh: MshOptions): string | undefined {
  const f = hdOf(msh.sendingFacility);
  const a = hdOf(msh.sendingApplication);
  return f?.namespace || f?.universalId || a?.namespace || a?.universalId || undefined;
}

export function versionOf(msh: MshOptions): string {
  const v = msh.version ?? DEFAULT_VERSION;
  if (!(VERSIONS as readonly string[]).includes(v)) throw new Hl7EncodingError("INVALID_INPUT", `HL7 version ${JSON.stringify(v)} is not one the encoder writes (${VERSIONS.join(", ")})`, "msh.version");
  return v;
}

function timestampOf(msh: MshOptions): string {
  const t = msh.timestamp ?? new Date();
  const iso = t instanceof Date ? t.toISOString() : t;
  const out = hl7DateTime(iso);
  if (!out || out.length < 12) throw new Hl7EncodingError("INVALID_INPUT", `msh.timestamp ${JSON.stringify(iso)} is not a FHIR instant`, "msh.timestamp");
  return out;
}

export interface Header {
  segment: Hl7Segment;
  controlId: string;
  timestamp: string;
}

export function msh(ctx: EncodeContext, options: MshOptions, type: string, event: string, structure: string, d: Delimiters): Header {
  const controlId = typeof options.controlId === "function" ? options.controlId() : (options.controlId ?? randomControlId());
  if (!controlId) throw new Hl7EncodingError("INVALID_INPUT", "msh.controlId gave an empty MSH-10", "msh.controlId");
  const max = ctx.atLeast("2.7") ? 199 : 20;
  if (controlId.length > max) ctx.warn(`MSH-10 ${JSON.stringify(controlId)} is longer than the ${max} characters HL7 v${ctx.version} allows`);
  const timestamp = timestampOf(options);
  const segment = headerSegment(
    {
      3: hdRep(hdOf(options.sendingApplication)),
      4: hdRep(hdOf(options.sendingFacility)),
      5: hdRep(hdOf(options.receivingApplication)),
      6: hdRep(hdOf(options.receivingFacility)),
      7: timestamp,
      9: ctx.atLeast("2.3.1") ? [type, event, structure] : [type, event],
      10: controlId,
      11: options.processingId ?? "P",
      12: ctx.version,
      15: options.acceptAckType,
      16: options.applicationAckType,
      18: options.characterSet,
    },
    d,
  );
  return { segment, controlId, timestamp };
}

/** EVN: the event type code (before v2.7, where EVN-1 was withdrawn) and the time it was recorded. */
export function evn(ctx: EncodeContext, event: string, recorded: string): Hl7Segment {
  return ctx.segment("EVN", { 1: ctx.atLeast("2.7") ? undefined : event, 2: recorded });
}
