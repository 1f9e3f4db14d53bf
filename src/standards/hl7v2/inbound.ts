// HL7 v2 as an inbound protocol (the adapter the generic inbound path uses): MSH-3|MSH-4
// is the sender, MSH-10 the control id, MSH-9 the type and trigger event, and the commit
// ACK (AA accepted, AR rejected, AE errored) the acknowledgement. Its messages fire the
// HL7 inbound trigger's event.
import type { InboundAdapter, MessageFacts, Reading } from "../../features/inbound";
import { type AckCode, buildAck } from "./ack";
import { Hl7ParseError } from "./errors";
import { type Hl7Message, parsePath } from "./message";
import { HL7_EVENT_TYPE, hl7EventAttributes } from "./nodes";
import { normaliseSegments, parseMessage } from "./parse";

export const HL7_PROTOCOL = "hl7v2";

/** Messages keep their order and MSH-10 uniqueness per sending application and facility. */
export function senderOf(message: Hl7Message, remoteAddress?: string): string {
  const app = message.sendingApplication.text;
  const facility = message.sendingFacility.text;
  if (!app && !facility && remoteAddress) return `connection:${remoteAddress}`;
  return `${app}|${facility}`;
}

const NO_FACTS: MessageFacts = { messageType: null, triggerEvent: null, version: null };

function readHl7(text: string, source: Readonly<Record<string, string>> | undefined): Reading<Hl7Message> {
  const raw = normaliseSegments(text);
  let parsed: Hl7Message;
  try {
    parsed = parseMessage(raw);
  } catch (err) {
    const problem = err instanceof Hl7ParseError ? { code: `HL7_${err.code}`, message: err.message } : { code: "HL7_PARSE_ERROR", message: String(err) };
    return { raw, header: null, facts: NO_FACTS, problem };
  }
  const facts = { messageType: parsed.messageType || null, triggerEvent: parsed.triggerEvent || null, version: parsed.version || null };
  if (!parsed.controlId) {
    return { raw, header: parsed, facts, problem: { code: "HL7_MISSING_CONTROL_ID", message: "MSH-10 (message control id) is empty" } };
  }
  return { raw, header: parsed, facts, key: { sender: senderOf(parsed, source?.remote_address), controlId: parsed.controlId } };
}

const ACK_CODES: Record<"accepted" | "rejected" | "errored", AckCode> = { accepted: "AA", rejected: "AR", errored: "AE" };

export const hl7InboundAdapter: InboundAdapter<Hl7Message> = {
  protocol: HL7_PROTOCOL,
  eventType: HL7_EVENT_TYPE,
  blob: { folder: "hl7", extension: ".hl7", mediaType: "x-application/hl7-v2+er7" },
  read: readHl7,
  acknowledge: (header, outcome, problem) => buildAck(header, ACK_CODES[outcome], problem?.message).toString(),
  attributes: hl7EventAttributes,
  fields: {
    problem(path) {
      try {
        parsePath(path);
        return undefined;
      } catch (e) {
        return `${(e as Error).message}: a field path is a segment, a field number and optionally component and subcomponent, e.g. PID-3, PID-5.1, OBX-3.1`;
      }
    },
    values(raw, path) {
      try {
        // Every occurrence and repetition; a path without a component reads each one's first component.
        return parseMessage(raw, { allowShortHeader: true }).getAll(path);
      } catch {
        return [];
      }
    },
  },
};
