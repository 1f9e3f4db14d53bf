// The inbound API's schemas (ingestion batches and their results, message summaries and
// details, the list query) and the presenters from stored rows to response bodies.
import { z } from "@hono/zod-openapi";
import { PageQuery, jsonAtMost } from "../../platform/http/schemas";
import type { InboundMessageSummary } from "./store";
import { type InboundMessageRow, MESSAGE_STATUSES } from "./tables";

export const IngestBody = z
  .object({
    messages: z
      .array(
        z.object({
          id: z.string().min(1).max(100).openapi({ description: "Sender's id for the message, stable across retries" }),
          raw: z.string().min(1).max(8 * 1024 * 1024).openapi({ description: "The message text (HL7 v2: ER7)" }),
          received_at: z.string().datetime({ offset: true }).optional(),
          source: z
            .record(z.string().max(100), z.string().max(500))
            .superRefine(jsonAtMost(16 * 1024))
            .optional()
            .openapi({ description: "Where the message came from (the bridge's connection details); at most 16 KiB of JSON" }),
        }),
      )
      .min(1)
      .max(100),
  })
  .openapi("InboundIngestRequest");

export const IngestResponse = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.enum(["accepted", "duplicate", "rejected"]),
        message_id: z.string(),
        ack: z.string().optional().openapi({ description: "The acknowledgement to return to the sender (HL7 v2: the commit ACK)" }),
        error: z.object({ code: z.string(), message: z.string() }).optional(),
      }),
    ),
  })
  .openapi("InboundIngestResponse");

export const STATUS_DESCRIPTION =
  "received: waiting to be routed; processed: every matching deployed pipeline ran; unrouted: no deployed pipeline " +
  "matched (reprocess it once one is deployed); failed: a pipeline failed; rejected: unparseable or unidentifiable";

export const MessageSummary = z
  .object({
    id: z.string(),
    protocol: z.string().openapi({ description: "The protocol adapter that read it, e.g. hl7v2" }),
    status: z.enum(MESSAGE_STATUSES).openapi({ description: STATUS_DESCRIPTION }),
    sender: z.string().nullable(),
    control_id: z.string().nullable(),
    message_type: z.string().nullable(),
    trigger_event: z.string().nullable(),
    version: z.string().nullable(),
    received_at: z.string(),
    updated_at: z.string(),
    attempts: z.number().int(),
    error: z.object({ code: z.string(), message: z.string(), at: z.string().optional() }).nullable(),
  })
  .openapi("InboundMessageSummary");

export const MessageDetail = MessageSummary.extend({
  raw: z.string(),
  ack: z.string().nullable().openapi({ description: "The acknowledgement answered when the message was first received (HL7 v2: the commit ACK); null before it was kept, or when the message was too broken to answer" }),
  source: z.record(z.string(), z.string()).nullable(),
  executions: z.array(z.string()),
  resources: z.array(z.string()),
}).openapi("InboundMessage");

export function summary(row: InboundMessageSummary): z.infer<typeof MessageSummary> {
  return {
    id: row.id,
    protocol: row.protocol,
    status: row.status,
    sender: row.sender,
    control_id: row.controlId,
    message_type: row.messageType,
    trigger_event: row.triggerEvent,
    version: row.version,
    received_at: row.receivedAt,
    updated_at: row.updatedAt,
    attempts: row.attempts,
    error: row.error ?? null,
  };
}


/** A message with its text, as its detail view answers it. */
export function detail(row: InboundMessageRow): z.infer<typeof MessageDetail> {
  return { ...summary(row), raw: row.raw, ack: row.ack ?? null, source: row.source ?? null, executions: row.executions, resources: row.resources };
}

export const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export const ProtocolParam = z.object({ protocol: z.string().max(50).openapi({ param: { name: "protocol", in: "path" }, example: "hl7v2" }) });

export const MessageListQuery = PageQuery.extend({
  status: z.enum(MESSAGE_STATUSES).optional().openapi({ description: STATUS_DESCRIPTION }),
  protocol: z.string().max(50).optional(),
  message_type: z.string().max(10).optional(),
  control_id: z.string().max(200).optional(),
  sender: z.string().max(500).optional(),
  text: z.string().min(1).max(200).optional().openapi({ description: "Text the message contains (ASCII case-insensitive); messages above 128 KB, kept in R2, are not searched" }),
  field: z
    .string()
    .min(1)
    .max(50)
    .optional()
    .openapi({ description: "A field path of the message's protocol (HL7 v2: PID-3, PID-5.1, OBX-3.1; without a component, each repetition's first component) whose value must equal `value`; needs `value`", example: "PID-3" }),
  value: z.string().min(1).max(200).optional().openapi({ description: "The value at `field` (compared case-insensitively, any occurrence or repetition)" }),
});

export const SendersResponse = z
  .object({
    senders: z.array(
      z.object({
        protocol: z.string(),
        sender: z.string().openapi({ description: "The sender's line as its adapter names it (HL7 v2: MSH-3|MSH-4)" }),
        count: z.number().int(),
        last_received_at: z.string(),
      }),
    ),
  })
  .openapi("InboundSenders");

const CountsShape = {
  received: z.number().int(),
  filtered: z.number().int().openapi({ description: "unrouted: no deployed pipeline took it" }),
  queued: z.number().int().openapi({ description: "received: waiting in its sender's line" }),
  sent: z.number().int().openapi({ description: "processed" }),
  errored: z.number().int().openapi({ description: "failed or rejected" }),
};

export const StatsQuery = z.object({
  hours: z.coerce.number().int().min(1).max(168).default(24).openapi({ description: "Hours back, the current one included (default 24, at most 168)" }),
});

export const StatsResponse = z
  .object({
    since: z.string().openapi({ description: "Start of the first hour counted (UTC)" }),
    routes: z.array(
      z.object({
        protocol: z.string(),
        sender: z.string().nullable().openapi({ description: "null for messages too broken to name their sender" }),
        ...CountsShape,
        hours: z.array(z.object({ start: z.string(), ...CountsShape })).openapi({ description: "One entry per UTC hour, oldest first" }),
      }),
    ),
  })
  .openapi("InboundStats");
