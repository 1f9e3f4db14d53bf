// Accepts a batch of inbound HL7 v2 messages: parses each enough to identify it,
// stores it idempotently (sender + MSH-10), and answers per message with the
// status and the commit ACK to send back. Routing happens afterwards, per sender.
import { buildAck } from "./ack";
import { Hl7ParseError } from "./errors";
import type { Hl7Message } from "./message";
import { normaliseSegments, parseMessage } from "./parse";
import type { InboundMessageStore, NewInboundMessage } from "../../features/inbound/store";

export interface InboundHl7 {
  /** The sender's id for the message, stable across its retries (the bridge's UUID). */
  id: string;
  raw: string;
  received_at?: string;
  source?: Record<string, string>;
}

export type IngestStatus = "accepted" | "duplicate" | "rejected";

export interface IngestResult {
  id: string;
  status: IngestStatus;
  message_id: string;
  /** The commit ACK for the sender; absent when the message is too broken to answer in HL7. */
  ack?: string;
  error?: { code: string; message: string };
}

/** Messages keep their order and MSH-10 uniqueness per sending application and facility. */
export function senderOf(message: Hl7Message, remoteAddress?: string): string {
  const app = message.sendingApplication.text;
  const facility = message.sendingFacility.text;
  if (!app && !facility && remoteAddress) return `connection:${remoteAddress}`;
  return `${app}|${facility}`;
}

interface Classified {
  input: InboundHl7;
  row: NewInboundMessage;
  parsed?: Hl7Message;
  error?: { code: string; message: string };
}

function classify(input: InboundHl7, now: string): Classified {
  const raw = normaliseSegments(input.raw);
  const base = {
    protocol: "hl7v2" as const,
    clientId: input.id,
    raw,
    receivedAt: input.received_at ?? now,
    source: input.source ?? null,
    messageType: null,
    triggerEvent: null,
    version: null,
    error: null,
  };
  let parsed: Hl7Message;
  try {
    parsed = parseMessage(raw);
  } catch (err) {
    const error = err instanceof Hl7ParseError ? { code: `HL7_${err.code}`, message: err.message } : { code: "HL7_PARSE_ERROR", message: String(err) };
    return { input, error, row: { ...base, sender: null, controlId: null, status: "rejected", error } };
  }
  const identity = {
    messageType: parsed.messageType || null,
    triggerEvent: parsed.triggerEvent || null,
    version: parsed.version || null,
  };
  if (!parsed.controlId) {
    const error = { code: "HL7_MISSING_CONTROL_ID", message: "MSH-10 (message control id) is empty" };
    return { input, parsed, error, row: { ...base, ...identity, sender: null, controlId: null, status: "rejected", error } };
  }
  const sender = senderOf(parsed, input.source?.remote_address);
  return { input, parsed, row: { ...base, ...identity, sender, controlId: parsed.controlId, status: "received" } };
}

export async function ingestHl7(store: InboundMessageStore, batch: InboundHl7[]): Promise<{ results: IngestResult[]; senders: string[] }> {
  const now = new Date().toISOString();
  const classified = batch.map((m) => classify(m, now));
  const outcomes = await store.insertMany(classified.map((c) => c.row));
  const senders = new Set<string>();
  const results = classified.map((c, i): IngestResult => {
    const { row, inserted } = outcomes[i]!;
    if (c.error) {
      return {
        id: c.input.id,
        status: "rejected",
        message_id: row.id,
        error: c.error,
        ...(c.parsed ? { ack: buildAck(c.parsed, "AR", c.error.message).toString() } : {}),
      };
    }
    if (inserted && row.sender) senders.add(row.sender);
    return { id: c.input.id, status: inserted ? "accepted" : "duplicate", message_id: row.id, ack: buildAck(c.parsed!, "AA").toString() };
  });
  return { results, senders: [...senders] };
}
