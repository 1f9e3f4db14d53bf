import type { OrgContext } from "../../platform/org-context";
import type { ApiError } from "../../platform/errors";

// The words of outbound delivery, shared by the queue, its transports and the features that
// enqueue (pipelines' nodes, FHIR Subscriptions, customer webhooks) or deliver (the bridge relay,
// the subscriptions' websockets). Plain types: nothing here talks to storage or the network.

/** Where a destination's messages go. */
export type DeliveryTarget =
  /** An org's connector: mllp → one HL7 exchange per message, the HTTP types → one request. */
  | { kind: "connector"; connector_id: string }
  /** A URL the destination owns (webhook and rest-hook endpoints), checked against the outbound guard on every call. */
  | { kind: "url"; url: string }
  /** A system inside the hospital network, reached through the org's bridge (mllp://host:port, http(s)://…, file:///dir). */
  | { kind: "bridge"; bridge_id: string; address: string }
  /** A FHIR Subscription's websocket channel: notifications go to the sockets bound to `subscription_id`. */
  | { kind: "websocket"; subscription_id: string };

export type TargetKind = DeliveryTarget["kind"];

/** What the message's bytes are, so a transport knows how to send them. */
export type PayloadProtocol = "hl7v2" | "http";

/** Who made a destination: an operator (null), or a feature that manages it for one of its resources. */
export type DestinationOwner = { kind: "subscription" | "webhook"; id: string } | null;

export type Ordering = "fifo" | "per_key";

export interface RetryPolicy {
  /** The first retry's delay; each later one doubles, with full jitter, up to max_delay_ms. */
  initial_delay_ms: number;
  max_delay_ms: number;
  /** How long after its first attempt a message keeps being retried before it is dead-lettered. */
  horizon_hours: number;
  /** HL7 ACK codes that are retried (the others that reject are permanent): AE and CE by default. */
  retryable_ack_codes: string[];
}

export const DEFAULT_RETRY: RetryPolicy = { initial_delay_ms: 1_000, max_delay_ms: 3_600_000, horizon_hours: 72, retryable_ack_codes: ["AE", "CE"] };

/** A destination as the queue sees it (the D1 row, decoded; secrets decrypted). */
export interface Destination {
  id: string;
  orgId: string;
  name: string;
  target: DeliveryTarget;
  owner: DestinationOwner;
  ordering: Ordering;
  /** Messages in flight at once (per_key: across keys; fifo: always 1). */
  concurrency: number;
  retry: RetryPolicy;
  timeout_ms: number;
  /** HTTP deliveries: the method and the headers every request carries (a message's own headers win). */
  http: { method: "POST" | "PUT"; headers: Record<string, string> };
  /** Standard Webhooks signing secrets (`whsec_…`), newest first: each request is signed with every one (rotation overlap). */
  signing_secrets: string[];
  /** "active" delivers; "paused" holds every message until resumed. */
  state: "active" | "paused";
}

/** One message handed to a destination. */
export interface OutboundMessage {
  /** The delivery id: stable across retries and re-enqueues (receivers de-duplicate on it); a second enqueue with the same id is ignored. Generated when absent. */
  id?: string;
  /** Ordering key (per_key destinations: e.g. the patient), messages of one key are delivered in order. */
  key?: string;
  body: string;
  content_type?: string;
  /** HTTP deliveries: extra headers, and a path under the connector's endpoint (e.g. `Patient/123` for a FHIR PUT). */
  headers?: Record<string, string>;
  path?: string;
  method?: "POST" | "PUT" | "DELETE";
  /** What put it there, for the message browser: a pipeline run's node, a subscription, a webhook event, an operator. */
  source?: { kind: string; id: string; execution_id?: string; node_id?: string };
  /** A webhook event's type, a subscription's event number…: shown and filtered on. */
  label?: string;
}

export type MessageState = "queued" | "in_flight" | "delivered" | "dead" | "skipped";

/**
 * Why an attempt failed, and whether it is retried (classify.ts). Retryable: the receiver could
 * take it later. Permanent: sending it again would get the same answer.
 */
export type FailureClass =
  | "refused" // connection refused or closed before an answer
  | "timeout"
  | "unreachable" // DNS, TLS, network
  | "server_error" // HTTP 5xx
  | "throttled" // HTTP 408, 429
  | "nack" // HL7 AE/CE (or a code on the retryable list)
  | "bridge_offline" // the destination's bridge is not connected
  | "configuration" // the connector or bridge is gone, the target is malformed: held until an operator fixes it
  | "client_error" // HTTP 4xx: permanent
  | "gone" // HTTP 410: permanent, and a webhook endpoint answering it is disabled
  | "redirect" // HTTP 3xx: redirects are not followed (a moved endpoint must be re-registered)
  | "reject" // HL7 AR/CR: permanent
  | "not_allowed" // the outbound guard refuses the address: permanent
  | "invalid_response"; // the answer is not an ACK: retryable

/** What a transport answers for one attempt, before the queue decides what follows. */
export interface AttemptResult {
  ok: boolean;
  /** HTTP status, when there was an answer. */
  status?: number;
  /** MSA-1 of an HL7 ACK. */
  ack_code?: string;
  /** The answer (ACK text, response body), cut to RESPONSE_EXCERPT_CHARS. */
  response?: string;
  failure?: { class: FailureClass; message: string };
}

/** The longest excerpt of an answer the queue keeps per attempt. */
export const RESPONSE_EXCERPT_CHARS = 4_096;

/** A message as the queue holds it. */
export interface QueuedMessage {
  id: string;
  seq: number;
  key: string;
  state: MessageState;
  body: string;
  content_type: string | null;
  headers: Record<string, string>;
  path: string | null;
  method: string | null;
  source: NonNullable<OutboundMessage["source"]> | null;
  label: string | null;
  enqueued_at: string;
  attempts: number;
  /** How many times an operator reprocessed it (a bridge transmit's `round`). */
  reprocessed: number;
  first_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  last_result: AttemptResult | null;
}

/** One attempt's record (the message browser shows each). */
export interface Attempt {
  message_id: string;
  number: number;
  started_at: string;
  duration_ms: number;
  result: AttemptResult;
}

/** What a transport is given for one attempt. */
export interface Delivery {
  destination: Destination;
  message: QueuedMessage;
  /** 1 for the first attempt. */
  attempt: number;
  signal: AbortSignal;
}

/**
 * How messages reach one kind of target. The composition root passes the deployment's
 * transports to the queue (src/main/entry.ts); a transport never throws for a failed delivery:
 * it answers the failure's class.
 */
export interface Transport {
  deliver(ctx: OrgContext, delivery: Delivery): Promise<AttemptResult>;
  /**
   * Why a destination cannot be saved with `target` (a connector or bridge not of this org, a URL
   * the outbound guard refuses), checked on create and update; undefined when it can. What may
   * change later (a connector deleted) is still answered by `deliver` as a configuration failure.
   */
  checkTarget?(ctx: OrgContext, target: DeliveryTarget): Promise<ApiError | undefined>;
  /**
   * What the deliveries of one drain share: the target read once (the connector, the bridge), a
   * connection kept open (mllp). The queue opens one at the start of each drain and hands it the
   * session it held before (`previous`, if any), which the new one takes over when it goes to the
   * same place (its connection stays open) or closes. Without it, each delivery is `deliver`.
   */
  session?(ctx: OrgContext, destination: Destination, previous: TransportSession | undefined): Promise<TransportSession>;
}

/** A transport's state for the deliveries of a drain (Transport.session); it never throws for a failed delivery. */
export interface TransportSession {
  deliver(delivery: Delivery): Promise<AttemptResult>;
  /** Closes what it holds (its connection); a session taken over by a newer one closes nothing the newer one uses. */
  close(): void;
}

/** The deployment's transports, one per target kind. */
export type Transports = Readonly<Record<TargetKind, Transport>>;

/** What a destination's owner hears after each attempt (subscriptions set `error`, webhooks disable after a streak). */
export interface AttemptObservation {
  destination: Destination;
  message: QueuedMessage;
  attempt: Attempt;
  /** What the queue did with the message after this attempt. */
  next: "delivered" | "retry" | "dead";
  /** Consecutive failed attempts of the destination, this one included (0 after a success). */
  failure_streak: number;
}

/** Hooks of destination owners, by owner kind, called after each attempt of their destinations' messages; they must not throw. */
export type AttemptObservers = Readonly<Partial<Record<NonNullable<DestinationOwner>["kind"], (ctx: OrgContext, observation: AttemptObservation) => Promise<void>>>>;
