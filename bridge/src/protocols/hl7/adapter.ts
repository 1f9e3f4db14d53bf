// HL7 v2 as the bridge sees it: MSH-3|MSH-4 is the sender and MSH-10 the control id, the commit
// ACK (AA/AE/AR or CA/CE/CR, as MSH-15 asks) is the reply, and batches go to the Worker's
// HL7 endpoint.
import { normaliseSegments } from "../../../../src/standards/hl7v2/parse";
import type { ForwardTarget, ProtocolAdapter, Reading } from "../../protocol";
import { ackPolicy, buildAck, type MshHeader, readHeader } from "./header";

export const HL7_PROTOCOL = "hl7v2";
export const HL7_MESSAGES_PATH = "/api/v1/hl7/messages";

export const hl7Target: ForwardTarget = {
  protocol: HL7_PROTOCOL,
  path: HL7_MESSAGES_PATH,
  body: (messages) => ({
    messages: messages.map((m) => ({
      id: m.id,
      raw: m.raw,
      received_at: m.receivedAt,
      source: { listener: m.listener, remote_address: m.remoteAddress },
    })),
  }),
};

export interface Hl7Options {
  /** Send a commit ACK even when MSH-15 (NE, ER) says the sender wants none. */
  alwaysAck: boolean;
}

export function hl7Adapter(options: Hl7Options): ProtocolAdapter<MshHeader> {
  return {
    protocol: HL7_PROTOCOL,
    target: hl7Target,
    read: readHl7,
    reply: (header, outcome, { replyId, problem }) => {
      const code = ackPolicy(header, outcome, options.alwaysAck);
      if (code === null) return null;
      return buildAck(header, { code, ackControlId: replyId, errorCode: problem?.code, errorText: problem?.reason });
    },
  };
}

/** Normalises segment ends and reads the MSH; HL7 table 0357 codes for what cannot be accepted. */
function readHl7(text: string, remoteAddress: string): Reading<MshHeader> {
  const raw = normaliseSegments(text);
  const parsed = readHeader(raw);
  if (!parsed.ok) {
    const key = { sender: null, controlId: null, messageType: null };
    return { raw, key, header: null, refusal: { code: "100", reason: parsed.error } };
  }
  const header = parsed.header;
  const key = {
    sender: senderKey(header, remoteAddress),
    controlId: header.controlId || null,
    messageType: header.messageType || null,
  };
  const reading: Reading<MshHeader> = { raw, key, header };
  if (!header.controlId) reading.refusal = { code: "101", reason: "MSH-10 message control id is empty" };
  else if (!header.messageType) reading.refusal = { code: "101", reason: "MSH-9 message type is empty" };
  return reading;
}

/** The sender whose messages keep their order and whose MSH-10 values must be unique. */
export function senderKey(header: MshHeader, remoteAddress: string): string {
  if (!header.sendingApplication && !header.sendingFacility) return `connection:${remoteAddress}`;
  return `${header.sendingApplication}|${header.sendingFacility}`;
}
