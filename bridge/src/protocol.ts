// What the protocol-neutral parts of the bridge (intake, queue, forwarder) need from a protocol:
// a message's key, the acknowledgement its listener sends back, and where its messages go.
// One implementation per protocol under protocols/<name>/.
import type { QueuedMessage, Settlement } from "./message-queue";

/** A message's identity: FIFO runs per sender, idempotency per (sender, control id), both within the protocol. */
export interface MessageKey {
  sender: string | null;
  controlId: string | null;
  messageType: string | null;
}

/** What the adapter read from one message. `Header` is its own context for `reply`. */
export interface Reading<Header> {
  /** The text stored and forwarded (normalised the way the protocol wants it). */
  raw: string;
  key: MessageKey;
  /** null when the message was unreadable: `reply` must still answer it. */
  header: Header | null;
  /** Set when the message cannot be accepted: it goes to the error queue and is answered "rejected". */
  refusal?: { code: string; reason: string };
}

export type ReplyOutcome = "accepted" | "error" | "rejected";

export interface ReplyDetails {
  /** The bridge's id for the message (or a fresh one when it was not stored). */
  replyId: string;
  /** Why the message was not accepted; `code` is the protocol's own error code when the adapter gave one. */
  problem?: { code?: string; reason: string };
}

/** Where one protocol's messages are forwarded: a Worker path and the JSON body of a batch. */
export interface ForwardTarget {
  protocol: string;
  path: string;
  body(messages: QueuedMessage[]): unknown;
  /**
   * Reads a 200 answer into verdicts when the target's answer is not the inbound endpoints'
   * `{results: [{id, status, message_id, error}]}` (the device ingest answers by index); null when unreadable.
   */
  readResults?(parsed: unknown, messages: QueuedMessage[]): Settlement[] | null;
}

export interface ProtocolAdapter<Header = unknown> {
  /** Stored with every message; selects the forwarding target. */
  readonly protocol: string;
  readonly target: ForwardTarget;
  read(text: string, remoteAddress: string): Reading<Header>;
  /** The transport-level acknowledgement or rejection, or null when none is to be sent. */
  reply(header: Header | null, outcome: ReplyOutcome, details: ReplyDetails): string | null;
}
