// Accepts a batch of inbound messages of one protocol: its adapter identifies each, the
// store keeps it idempotently (sender + control id, or the sender's own message id), and
// each gets its status and the acknowledgement to send back. Routing happens afterwards,
// per sender (message-router.ts).
import type { InboundAdapter, Reading } from "./adapter";
import type { InboundMessageStore, NewInboundMessage } from "./store";

export interface InboundMessageInput {
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
  /** The acknowledgement for the sender; absent when the message is too broken to answer in its protocol. */
  ack?: string;
  error?: { code: string; message: string };
}

function rowOf(protocol: string, input: InboundMessageInput, reading: Reading<unknown>, ack: string | undefined, now: string): NewInboundMessage {
  return {
    protocol,
    ack: ack ?? null,
    clientId: input.id,
    raw: reading.raw,
    receivedAt: input.received_at ?? now,
    source: input.source ?? null,
    ...reading.facts,
    ...(reading.key
      ? { sender: reading.key.sender, controlId: reading.key.controlId, status: "received", error: null }
      : { sender: null, controlId: null, status: "rejected", error: reading.problem }),
  };
}

export async function ingestMessages<H>(
  store: InboundMessageStore,
  adapter: InboundAdapter<H>,
  batch: InboundMessageInput[],
): Promise<{ results: IngestResult[]; senders: string[] }> {
  const now = new Date().toISOString();
  const readings = batch.map((m) => adapter.read(m.raw, m.source));
  // Built before the insert so the row keeps the acknowledgement its sender got.
  const acks = readings.map(({ header, problem }) => (header === null ? undefined : problem ? adapter.acknowledge(header, "rejected", problem) : adapter.acknowledge(header, "accepted")));
  const outcomes = await store.insertMany(
    readings.map((r, i) => rowOf(adapter.protocol, batch[i]!, r, acks[i], now)),
    adapter.blob,
  );
  const senders = new Set<string>();
  const results = readings.map((reading, i): IngestResult => {
    const { row, inserted } = outcomes[i]!;
    const id = batch[i]!.id;
    const { problem } = reading;
    const ack = acks[i] === undefined ? {} : { ack: acks[i] };
    if (problem) return { id, status: "rejected", message_id: row.id, error: problem, ...ack };
    if (inserted && row.sender) senders.add(row.sender);
    return { id, status: inserted ? "accepted" : "duplicate", message_id: row.id, ...ack };
  });
  return { results, senders: [...senders] };
}
