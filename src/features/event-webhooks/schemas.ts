// The customer webhooks API's zod schemas (validation and OpenAPI) and presenters.
import { z } from "@hono/zod-openapi";
import { PageQuery } from "../../platform/http/schemas";
import type { Attempt, QueuedMessage } from "../destinations";
import { EVENT_TYPES } from "./catalog";
import { DEFAULT_OVERLAP_HOURS, MAX_OVERLAP_HOURS, type SigningSecret } from "./secrets";
import type { WebhookEndpointRow } from "./tables";

const EVENT_TYPE_LIST = "Event types (GET /api/v1/webhook-event-types) or patterns: `*`, a prefix and `.*` (`alert.*`, `fhir.*`, `fhir.Observation.*`), or `*` for one segment (`fhir.*.deleted`)";

export const EventField = z.object({ name: z.string(), type: z.string(), description: z.string() }).openapi("WebhookEventField");
export const EventTypeSchema = z.object({ type: z.string(), description: z.string(), data: z.array(EventField) }).openapi("WebhookEventType");
export const EventTypeList = z.object({ event_types: z.array(EventTypeSchema) }).openapi("WebhookEventTypeList");
export const eventTypeList = () => ({ event_types: EVENT_TYPES.map((e) => ({ type: e.type, description: e.description, data: [...e.data] })) });

const url = z.string().max(2048).openapi({ description: "https URL (http only for an address OUTBOUND_ALLOW lists)", example: "https://example.com/hooks/cdis" });
const eventTypes = z.array(z.string().min(1).max(128)).min(1).max(100).openapi({ description: EVENT_TYPE_LIST });
const description = z.string().max(500).nullish();

export const EndpointBody = z.object({ url, event_types: eventTypes, description, enabled: z.boolean().default(true) }).strict().openapi("WebhookEndpointInput");
export const EndpointPatch = z
  .object({ url: url.optional(), event_types: eventTypes.optional(), description, enabled: z.boolean().optional().openapi({ description: "true re-enables a disabled endpoint (its disable state is cleared)" }) })
  .strict()
  .openapi("WebhookEndpointPatch");

export const RotateBody = z
  .object({ overlap_hours: z.number().int().min(0).max(MAX_OVERLAP_HOURS).default(DEFAULT_OVERLAP_HOURS).openapi({ description: `How long the secrets before keep signing (default ${DEFAULT_OVERLAP_HOURS}; 0 ends them at once)` }) })
  .strict()
  .openapi("WebhookRotateSecret");

export const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.enum(["gone", "failing"]).nullable().openapi({ description: "Why the service disabled it: gone (answered 410), failing (no success for 5 days); null when enabled or disabled by hand" }),
    disabled_at: z.string().nullable(),
    failing_since: z.string().nullable().openapi({ description: "First failed attempt since the last success" }),
    secret_created_at: z.string().openapi({ description: "When the current secret was made" }),
    previous_secret_expires_at: z.string().nullable().openapi({ description: "Until when the secret before the last rotation still signs (both signatures are sent meanwhile)" }),
    destination_id: z.string().nullable().openapi({ description: "The destination queue its deliveries go through" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WebhookEndpoint");

export const EndpointWithSecret = Endpoint.extend({ secret: z.string().openapi({ description: "whsec_… Standard Webhooks signing secret: shown only in this answer" }) }).openapi("WebhookEndpointCreated");

export function presentEndpoint(row: WebhookEndpointRow, secrets: readonly SigningSecret[]): z.infer<typeof Endpoint> {
  const now = new Date().toISOString();
  const previous = secrets.slice(1).filter((s) => s.expires_at !== null && s.expires_at > now);
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes,
    enabled: row.enabled,
    disabled_reason: (row.disabledReason as "gone" | "failing" | null) ?? null,
    disabled_at: row.disabledAt,
    failing_since: row.failingSince,
    secret_created_at: secrets[0]?.created_at ?? row.createdAt,
    previous_secret_expires_at: previous.map((s) => s.expires_at as string).sort().at(-1) ?? null,
    destination_id: row.destinationId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export const EndpointIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });
export const DeliveryParams = EndpointIdParam.extend({ delivery_id: z.string().openapi({ param: { name: "delivery_id", in: "path" } }) });
export const EndpointListQuery = PageQuery;

const MESSAGE_STATES = ["queued", "in_flight", "delivered", "dead", "skipped"] as const;
export const DeliveryListQuery = z.object({
  state: z.enum(MESSAGE_STATES).optional(),
  event_type: z.string().max(128).optional(),
  since: z.string().datetime({ offset: true }).optional().openapi({ description: "Only deliveries enqueued at or after (ISO 8601)" }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(500).optional(),
});

const AttemptSchema = z
  .object({
    number: z.number().int(),
    started_at: z.string(),
    latency_ms: z.number(),
    ok: z.boolean(),
    status: z.number().int().nullable(),
    failure: z.object({ class: z.string(), message: z.string() }).nullable(),
    response: z.string().nullable().openapi({ description: "The answer's first characters" }),
  })
  .openapi("WebhookAttempt");

export const Delivery = z
  .object({
    id: z.string().openapi({ description: "The delivery id, sent as webhook-id (the same on every retry and replay)" }),
    event_id: z.string().nullable(),
    event_type: z.string().nullable(),
    state: z.enum(MESSAGE_STATES),
    attempts: z.number().int(),
    enqueued_at: z.string(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    last_status: z.number().int().nullable(),
    last_failure: z.object({ class: z.string(), message: z.string() }).nullable(),
    last_response: z.string().nullable(),
  })
  .openapi("WebhookDelivery");
export const DeliveryPage = z.object({ deliveries: z.array(Delivery), next_cursor: z.string().nullable() }).openapi("WebhookDeliveryPage");
export const DeliveryDetail = Delivery.extend({ payload: z.string(), attempt_log: z.array(AttemptSchema) }).openapi("WebhookDeliveryDetail");

export function presentDelivery(m: QueuedMessage): z.infer<typeof Delivery> {
  return {
    id: m.id,
    event_id: m.source?.id ?? null,
    event_type: m.label,
    state: m.state,
    attempts: m.attempts,
    enqueued_at: m.enqueued_at,
    next_attempt_at: m.next_attempt_at,
    delivered_at: m.delivered_at,
    last_status: m.last_result?.status ?? null,
    last_failure: m.last_result?.failure ?? null,
    last_response: m.last_result?.response ?? null,
  };
}

export function presentDeliveryDetail(m: QueuedMessage, attempts: readonly Attempt[]): z.infer<typeof DeliveryDetail> {
  return {
    ...presentDelivery(m),
    payload: m.body,
    attempt_log: attempts.map((a) => ({ number: a.number, started_at: a.started_at, latency_ms: a.duration_ms, ok: a.result.ok, status: a.result.status ?? null, failure: a.result.failure ?? null, response: a.result.response ?? null })),
  };
}

export const ReplayBody = z
  .union([
    z.object({ event_id: z.string().min(1).max(300) }).strict(),
    z.object({ from: z.string().datetime({ offset: true }), to: z.string().datetime({ offset: true }) }).strict(),
  ])
  .openapi("WebhookReplay", { description: "One event by id, or every event the endpoint is subscribed to that occurred in [from, to] (at most 1000 per call)" });
export const ReplayResult = z
  .object({ replayed: z.array(z.object({ event_id: z.string(), delivery_id: z.string() })), truncated: z.boolean().openapi({ description: "More events are in the range: replay again from the last one's time" }) })
  .openapi("WebhookReplayResult");
