// The contract a protocol implements to feed the inbound path: HL7 v2 first, device
// messages (MQTT) and X12 next. Ingestion, the store, the drain, the routing and the
// routes know only this interface; a protocol's adapter lives in standards/<name>/ and
// the composition root registers it (src/main/plugins.ts).

/** Why a message cannot be accepted, in the protocol's own terms. */
export interface MessageProblem {
  code: string;
  message: string;
}

/** Facts about a message that triggers and listings filter on; null when the message does not say. */
export interface MessageFacts {
  messageType: string | null;
  triggerEvent: string | null;
  version: string | null;
}

/**
 * One message as its adapter read it. `Header` is the adapter's own context for acknowledging it;
 * null when the message is too broken to answer in its protocol.
 */
export type Reading<Header> = {
  /** The text stored and handed to pipelines, normalised the way the protocol wants it. */
  raw: string;
  header: Header | null;
  facts: MessageFacts;
} & (
  | {
      /** The sender's line (messages keep their arrival order per sender) and the id unique within it. */
      key: { sender: string; controlId: string };
      problem?: undefined;
    }
  | { key?: undefined; problem: MessageProblem }
);

/** accepted: stored (or already stored); rejected: the message is wrong; errored: it could not be processed. */
export type AckOutcome = "accepted" | "rejected" | "errored";

/** What a stored message offers its protocol to describe it to trigger filters. */
export interface StoredFacts extends MessageFacts {
  sender: string | null;
}

export interface InboundAdapter<Header = unknown> {
  /** The protocol's name: stored with each message, and the `{protocol}` of its endpoint. */
  readonly protocol: string;
  /** The event type its messages fire: deployed pipelines whose event trigger names it are run. */
  readonly eventType: string;
  /** Where a message too large for a row is kept in R2: `orgs/<org>/<folder>/messages/<id><extension>`. */
  readonly blob: { folder: string; extension: string; mediaType: string };
  /** Identifies one message from its text; `source` is where it came from (the bridge's listener, remote address). */
  read(text: string, source: Readonly<Record<string, string>> | undefined): Reading<Header>;
  /** The acknowledgement the sender gets back for the outcome. */
  acknowledge(header: Header, outcome: AckOutcome, problem?: MessageProblem): string;
  /** The attributes a trigger of `eventType` compares with its filters. */
  attributes(message: StoredFacts): Record<string, string>;
  /** Content search by field path (HL7 v2: `PID-3`, `OBX-3.1`); absent when the protocol has none. */
  readonly fields?: FieldPaths;
}

export interface FieldPaths {
  /** Why `path` is not one of the protocol's field paths; undefined when it is. */
  problem(path: string): string | undefined;
  /** Every non-empty value at `path` in a stored message's text (none when the text does not parse). */
  values(raw: string, path: string): string[];
}

/** What a pipeline's trigger receives as the event's payload, whatever the protocol. */
export interface InboundEventPayload {
  message_id: string;
  control_id: string;
  sender: string;
  raw: string;
}

/** An endpoint that ingests one protocol's messages at a fixed path (kept from before the neutral one). */
export interface ProtocolAlias {
  path: string;
  protocol: string;
  summary: string;
}
