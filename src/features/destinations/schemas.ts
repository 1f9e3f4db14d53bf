// The destinations API's zod schemas (validation and OpenAPI) and the presenters of destinations
// and their messages.
import { z } from "@hono/zod-openapi";
import { PageQuery } from "../../platform/http/schemas";
import { type Attempt, DEFAULT_RETRY, type QueuedMessage } from "./model";
import type { QueueFigures } from "./queue-store";
import type { DestinationRow } from "./tables";

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const Headers = z
  .record(z.string().regex(HEADER_NAME, "An HTTP header name"), z.string().max(4096))
  .refine((h) => Object.keys(h).length <= 32, "At most 32 headers")
  .openapi({ description: "Headers every request carries" });

const BRIDGE_ADDRESS = /^(mllps?:\/\/[^/\s:]+:\d{1,5}|https?:\/\/\S+|file:\/\/\/\S*)$/;

export const TargetSchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("connector"), connector_id: z.string().min(1).max(64).openapi({ description: "One of the org's connectors: mllp (HL7 exchange) or an HTTP type (fhir, http, ...)" }) }).strict(),
    z.object({ kind: z.literal("url"), url: z.url().max(2048).openapi({ description: "An https URL (http only where OUTBOUND_ALLOW allows it), checked on every attempt" }) }).strict(),
    z
      .object({
        kind: z.literal("bridge"),
        bridge_id: z.string().min(1).max(64).openapi({ description: "One of the org's bridges (docs/bridge-relay.md)" }),
        address: z.string().regex(BRIDGE_ADDRESS, "mllp://host:port, http(s)://… or file:///directory on the bridge's network").openapi({ description: "Where the bridge delivers, on the hospital network" }),
      })
      .strict(),
  ])
  .openapi("DeliveryTarget");

const RetrySchema = z
  .object({
    initial_delay_ms: z.number().int().min(100).max(3_600_000).optional(),
    max_delay_ms: z.number().int().min(100).max(86_400_000).optional(),
    horizon_hours: z.number().min(0.01).max(24 * 30).optional().openapi({ description: `Retry for this long after the first attempt, then dead-letter (default ${DEFAULT_RETRY.horizon_hours})` }),
    retryable_ack_codes: z.array(z.enum(["AE", "CE", "AR", "CR"])).max(4).optional().openapi({ description: "HL7 ACK codes retried (default AE, CE); the other rejecting codes dead-letter at once" }),
  })
  .strict();

const DestinationFields = {
  name: z.string().trim().min(1).max(120),
  description: z.string().max(1000).nullish(),
  target: TargetSchema,
  ordering: z.enum(["fifo", "per_key"]).optional().openapi({ description: "fifo (default): one at a time in order; per_key: in order per message key, keys in parallel" }),
  concurrency: z.number().int().min(1).max(16).optional().openapi({ description: "per_key: messages in flight at once (default 4)" }),
  retry: RetrySchema.optional(),
  timeout_ms: z.number().int().min(100).max(120_000).optional().openapi({ description: "How long one attempt waits for its answer (default 10000)" }),
  http: z.object({ method: z.enum(["POST", "PUT"]).optional(), headers: Headers.optional() }).strict().optional(),
  hl7: z
    .object({
      sending_application: z.string().max(227).optional(),
      sending_facility: z.string().max(227).optional(),
      receiving_application: z.string().max(227).optional(),
      receiving_facility: z.string().max(227).optional(),
      version: z.string().max(8).optional(),
      processing_id: z.string().max(3).optional(),
    })
    .strict()
    .nullish()
    .openapi({ description: "MSH settings hl7.from_fhir takes when it names this destination (they win over its msh)" }),
};

export const DestinationBody = z.object(DestinationFields).strict().openapi("DestinationInput");
export const DestinationPatch = z.object(DestinationFields).partial().strict().openapi("DestinationPatch");
export type DestinationBodyInput = z.infer<typeof DestinationBody>;

export const IdParam = z.object({ id: z.string().min(1).max(64) });
export const MessageParam = IdParam.extend({ message_id: z.string().min(1).max(200) });
export const DestinationListQuery = PageQuery;

const Figures = z
  .object({
    depth: z.number().int().openapi({ description: "Messages waiting (queued or in flight)" }),
    in_flight: z.number().int(),
    dead: z.number().int(),
    delivered_retained: z.number().int().openapi({ description: "Delivered messages kept for the message browser (7 days)" }),
    oldest_pending_at: z.string().nullable(),
    oldest_age_ms: z.number().int().nullable(),
    delivered: z.object({ m1: z.number().int(), m15: z.number().int(), m60: z.number().int() }).openapi({ description: "Delivered in the last 1, 15 and 60 minutes" }),
    failed_attempts: z.object({ m1: z.number().int(), m15: z.number().int(), m60: z.number().int() }),
    throughput_per_min_15m: z.number(),
    mean_lag_ms_15m: z.number().int().nullable().openapi({ description: "Mean time from enqueue to delivery over the last 15 minutes" }),
    max_lag_ms_15m: z.number().int().nullable(),
    last_delivered_at: z.string().nullable(),
    failing_since: z.string().nullable(),
    last_failure: z.object({ class: z.string(), message: z.string() }).nullable(),
  })
  .openapi("DestinationFigures");

export const Destination = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    target: TargetSchema.or(z.object({ kind: z.literal("websocket"), subscription_id: z.string() })),
    owner: z.object({ kind: z.enum(["subscription", "webhook"]), id: z.string() }).nullable().openapi({ description: "Set when a Subscription or webhook endpoint manages the destination" }),
    ordering: z.enum(["fifo", "per_key"]),
    concurrency: z.number().int(),
    retry: z.object({ initial_delay_ms: z.number(), max_delay_ms: z.number(), horizon_hours: z.number(), retryable_ack_codes: z.array(z.string()) }),
    timeout_ms: z.number().int(),
    http: z.object({ method: z.string(), headers: z.record(z.string(), z.string()) }),
    hl7: z.record(z.string(), z.string()).nullable(),
    signed: z.boolean().openapi({ description: "Whether requests carry Standard Webhooks signatures" }),
    state: z.enum(["active", "paused"]),
    status: z.enum(["active", "paused", "failing"]).openapi({ description: "paused; failing while the head of the queue keeps failing; else active" }),
    figures: Figures,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Destination");

const AttemptResultSchema = z.object({
  ok: z.boolean(),
  status: z.number().int().optional(),
  ack_code: z.string().optional(),
  response: z.string().optional(),
  failure: z.object({ class: z.string(), message: z.string() }).optional(),
});

export const QueuedMessageSchema = z
  .object({
    id: z.string().openapi({ description: "The delivery id: the same on every attempt (x-delivery-id, webhook-id)" }),
    seq: z.number().int(),
    key: z.string(),
    state: z.enum(["queued", "in_flight", "delivered", "dead", "skipped"]),
    body: z.string(),
    content_type: z.string().nullable(),
    headers: z.record(z.string(), z.string()),
    path: z.string().nullable(),
    method: z.string().nullable(),
    source: z.object({ kind: z.string(), id: z.string(), execution_id: z.string().optional(), node_id: z.string().optional() }).nullable(),
    label: z.string().nullable(),
    enqueued_at: z.string(),
    attempts: z.number().int(),
    reprocessed: z.number().int().openapi({ description: "How many times an operator reprocessed it" }),
    first_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    last_result: AttemptResultSchema.nullable(),
  })
  .openapi("QueuedMessage");

export const AttemptSchema = z.object({ number: z.number().int(), started_at: z.string(), duration_ms: z.number().int(), result: AttemptResultSchema }).openapi("DeliveryAttempt");

export const MessageListQuery = z.object({
  state: z.enum(["queued", "in_flight", "delivered", "dead", "skipped"]).optional(),
  label: z.string().max(200).optional(),
  key: z.string().max(200).optional(),
  since: z.iso.datetime({ offset: true }).optional().openapi({ description: "Messages enqueued at or after this time" }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().regex(/^\d+$/).optional().openapi({ description: "next_cursor of the previous page" }),
});

export const EnqueueBody = z
  .object({
    messages: z
      .array(
        z
          .object({
            id: z.string().min(1).max(200).optional().openapi({ description: "Delivery id; generated when absent. A second enqueue with the same id is ignored" }),
            key: z.string().max(200).optional().openapi({ description: "Ordering key (per_key destinations)" }),
            body: z.string().max(1_000_000),
            content_type: z.string().max(200).optional(),
            headers: Headers.optional(),
            path: z.string().max(2048).optional(),
            method: z.enum(["POST", "PUT", "DELETE"]).optional(),
            label: z.string().max(200).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(100),
  })
  .strict();

export const MessageIdsBody = z.object({ message_ids: z.array(z.string().min(1).max(200)).max(1000).optional().openapi({ description: "Omitted: every eligible message" }) }).strict();
export const PurgeBody = z.object({ states: z.array(z.enum(["queued", "dead", "delivered", "skipped"])).min(1) }).strict();

export function presentFigures(f: QueueFigures | null, now = Date.now()) {
  const figures = f ?? {
    depth: 0,
    in_flight: 0,
    dead: 0,
    delivered_retained: 0,
    oldest_pending_at: null,
    delivered: { m1: 0, m15: 0, m60: 0 },
    failed_attempts: { m1: 0, m15: 0, m60: 0 },
    mean_lag_ms_15m: null,
    max_lag_ms_15m: null,
    last_delivered_at: null,
    failing_since: null,
    last_failure: null,
  };
  return {
    ...figures,
    oldest_age_ms: figures.oldest_pending_at ? Math.max(0, now - Date.parse(figures.oldest_pending_at)) : null,
    throughput_per_min_15m: Math.round((figures.delivered.m15 / 15) * 100) / 100,
  };
}

export function presentDestination(row: DestinationRow, figures: QueueFigures | null) {
  const shown = presentFigures(figures);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    target: row.target,
    owner: row.ownerKind && row.ownerId ? { kind: row.ownerKind as "subscription" | "webhook", id: row.ownerId } : null,
    ordering: row.ordering,
    concurrency: row.concurrency,
    retry: row.retry,
    timeout_ms: row.timeoutMs,
    http: row.http,
    hl7: row.hl7,
    signed: row.signingEnc !== null,
    state: row.state,
    status: row.state === "paused" ? ("paused" as const) : shown.failing_since ? ("failing" as const) : ("active" as const),
    figures: shown,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const ActivityFields = {
  received: z.number().int().openapi({ description: "Messages enqueued (a reprocessed message arrives again)" }),
  queued: z.number().int().openapi({ description: "Of those, the ones still waiting (queued or in flight)" }),
  sent: z.number().int().openapi({ description: "Deliveries that succeeded" }),
  errored: z.number().int().openapi({ description: "Attempts that failed (each retry counts)" }),
};

export const DestinationActivitySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(["active", "paused", "failing"]),
    owner: z.object({ kind: z.enum(["subscription", "webhook"]), id: z.string() }).nullable(),
    depth: z.number().int().openapi({ description: "Messages waiting now (queued or in flight), whenever they arrived" }),
    dead: z.number().int().openapi({ description: "Dead messages now, waiting for an operator" }),
    totals: z.object(ActivityFields).openapi({ description: "The window's sums" }),
    hours: z.array(z.object({ start: z.string().openapi({ example: "2026-12-03T05:00:00Z" }), ...ActivityFields })).openapi({ description: "One entry per UTC hour of the window, oldest first; the last is the current hour" }),
  })
  .openapi("DestinationActivity");

export function presentActivity(a: { row: DestinationRow; figures: QueueFigures | null; totals: z.infer<typeof DestinationActivitySchema>["totals"]; hours: z.infer<typeof DestinationActivitySchema>["hours"] }): z.infer<typeof DestinationActivitySchema> {
  const { id, name, owner, status, figures } = presentDestination(a.row, a.figures);
  return { id, name, owner, status, depth: figures.depth, dead: figures.dead, totals: a.totals, hours: a.hours };
}

export const presentMessage = (m: QueuedMessage) => m;
export const presentAttempt = ({ message_id: _, ...a }: Attempt) => a;
