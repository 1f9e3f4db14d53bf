// What customer webhooks need of the destination queues, as a port: the managed destination of
// an endpoint, enqueueing its messages, reading its log, and putting delivered messages back for
// a replay. destinationsPort (destinations-port.ts) implements it over the destinations feature; tests may pass
// another. And the messages themselves: one per (event, endpoint), whose id is the Standard
// Webhooks `webhook-id` (the same on every retry and every replay).
import type { PublishedEvent } from "../../platform/events";
import type { OrgContext } from "../../platform/org-context";
import type { Attempt, MessageState, OutboundMessage, QueuedMessage } from "../destinations";

export interface EndpointDestination {
  url: string;
  /** Valid signing secrets, newest first (each request carries a signature of each). */
  signing_secrets: string[];
  /** paused while the endpoint is disabled: its queued messages wait. */
  state: "active" | "paused";
}

export interface DeliveryPort {
  /** Creates or updates the endpoint's managed destination; answers its id. */
  save(ctx: OrgContext, endpointId: string, spec: EndpointDestination): Promise<string>;
  /** Removes the endpoint's destination and its queue. */
  remove(ctx: OrgContext, endpointId: string): Promise<void>;
  /** Enqueues messages (an id given twice is enqueued once). */
  enqueue(ctx: OrgContext, destinationId: string, messages: OutboundMessage[]): Promise<void>;
  /** Puts messages back in the queue with their ids (delivered, dead or never sent), for a replay. */
  redeliver(ctx: OrgContext, destinationId: string, messages: OutboundMessage[]): Promise<void>;
  listMessages(ctx: OrgContext, destinationId: string, q: { state?: MessageState; label?: string; since?: string; limit?: number; cursor?: string }): Promise<{ messages: QueuedMessage[]; next_cursor: string | null }>;
  messageAttempts(ctx: OrgContext, destinationId: string, messageId: string): Promise<{ message: QueuedMessage; attempts: Attempt[] }>;
}

/** What a message's `source.kind` is for webhook deliveries. */
export const EVENT_SOURCE = "webhook_event";

/** The request body: the Standard Webhooks payload shape (`type`, `timestamp`, `data`) with the event's id. */
export function payloadOf(event: PublishedEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: event.occurred_at, data: event.data });
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** The delivery id (`webhook-id`) of `eventId` to `endpointId`: derived, so every raise, retry and replay carries the same. */
export async function messageIdOf(endpointId: string, eventId: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${endpointId}\n${eventId}`));
  return `msg_${hex(digest).slice(0, 32)}`;
}

/** The data fields naming what an event is about, most specific first. */
const SUBJECT_FIELDS = ["alert_id", "execution_id", "sync_id", "message_id", "observation_id", "endpoint_id", "reference"] as const;

/**
 * The event's ordering key on an endpoint's queue: what it is about (`alert:<id>` for every
 * alert.* event of one alert, a FHIR resource's reference…), else the event itself. Events of
 * one subject are delivered in the order they were raised.
 */
export function subjectOf(event: PublishedEvent): string {
  for (const field of SUBJECT_FIELDS) {
    const value = event.data[field];
    if (typeof value === "string" && value) return `${field.replace(/_id$/, "")}:${value}`.slice(0, 200);
  }
  return `event:${event.id}`.slice(0, 200);
}

export async function messageOf(endpointId: string, event: PublishedEvent): Promise<OutboundMessage> {
  return {
    id: await messageIdOf(endpointId, event.id),
    key: subjectOf(event),
    body: payloadOf(event),
    content_type: "application/json",
    label: event.type,
    source: { kind: EVENT_SOURCE, id: event.id },
  };
}
