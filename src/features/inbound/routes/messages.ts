// Inbound messages of every protocol: the ingestion endpoints the bridge (or any HTTP
// sender) posts batches to, one per registered protocol adapter (plus aliases kept from
// before, e.g. the HL7 endpoint), and the message store's list/view/reprocess API.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { MESSAGE_STATUSES } from "../tables";
import { database } from "../../../platform/db/client";
import { conflict, notFound } from "../../../platform/errors";
import type { AppEnv } from "../../../app-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, jsonAtMost, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import type { InboundAdapter } from "../adapter";
import type { InboundAdapters } from "../adapters";
import { ingestMessages } from "../ingest";
import { type InboundMessageSummary, InboundMessageStore } from "../store";
import { requirePermission } from "../../tenancy/middleware/auth";
import { orgObject } from "../../../platform/durable-objects/object-names";

const tags = ["Inbound messages"];

const IngestBody = z
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

const IngestResponse = z
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

const STATUS_DESCRIPTION =
  "received: waiting to be routed; processed: every matching deployed pipeline ran; unrouted: no deployed pipeline " +
  "matched (reprocess it once one is deployed); failed: a pipeline failed; rejected: unparseable or unidentifiable";

const MessageSummary = z
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

const MessageDetail = MessageSummary.extend({
  raw: z.string(),
  source: z.record(z.string(), z.string()).nullable(),
  executions: z.array(z.string()),
  resources: z.array(z.string()),
}).openapi("InboundMessage");

function summary(row: InboundMessageSummary): z.infer<typeof MessageSummary> {
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

const storeFor = (c: Context<AppEnv>) => new InboundMessageStore(database(c.env.DB), c.get("principal").orgId, c.env.BLOBS);

async function kickRouters(c: Context<AppEnv>, senders: string[]): Promise<void> {
  const orgId = c.get("principal").orgId;
  const ns = c.env.MESSAGE_ROUTER;
  await Promise.all(senders.map((s) => orgObject(ns, orgId, s).kick(orgId, s)));
}

const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

const ingestDescription =
  "Stores each message durably and idempotently (per sender and control id; HL7 v2: sending application|facility and MSH-10), " +
  "answers per message with accepted, duplicate or rejected and the acknowledgement to send, then routes accepted messages to " +
  "the organization's deployed pipelines in arrival order per sender.";

const ingestResponses = { 200: { description: "Per-message results, in request order", content: json(IngestResponse) }, ...commonErrors };

async function ingest(c: Context<AppEnv>, adapter: InboundAdapter, messages: z.infer<typeof IngestBody>["messages"]) {
  const { results, senders } = await ingestMessages(storeFor(c), adapter, messages);
  await kickRouters(c, senders);
  return c.json({ results }, 200);
}

/** An endpoint that ingests one protocol's messages at a fixed path (kept from before the neutral one). */
export interface ProtocolAlias {
  path: string;
  protocol: string;
  summary: string;
}

/** POST /v1/inbound/{protocol}/messages for every registered adapter, and each alias. */
export function inboundIngestRoutes(adapters: InboundAdapters, aliases: readonly ProtocolAlias[]) {
  const router = createRouter().openapi(
    createRoute({
      method: "post",
      path: "/v1/inbound/{protocol}/messages",
      tags,
      summary: "Ingest a batch of inbound messages of one protocol (the bridge's forwarding endpoint)",
      description: `${ingestDescription} Protocols: ${adapters.protocols().join(", ")}; another answers 404 UNKNOWN_PROTOCOL.`,
      security,
      middleware: requirePermission("messages:ingest"),
      request: {
        params: z.object({ protocol: z.string().max(50).openapi({ param: { name: "protocol", in: "path" }, example: "hl7v2" }) }),
        body: { required: true, content: json(IngestBody) },
      },
      responses: { ...ingestResponses, ...notFoundError },
    }),
    (c) => ingest(c, adapters.require(c.req.valid("param").protocol), c.req.valid("json").messages),
  );
  for (const alias of aliases) {
    router.openapi(
      createRoute({
        method: "post",
        path: alias.path,
        tags,
        summary: alias.summary,
        description: `${ingestDescription} The same as POST /api/v1/inbound/${alias.protocol}/messages.`,
        security,
        middleware: requirePermission("messages:ingest"),
        request: { body: { required: true, content: json(IngestBody) } },
        responses: ingestResponses,
      }),
      (c) => ingest(c, adapters.require(alias.protocol), c.req.valid("json").messages),
    );
  }
  return router;
}

export const inboundMessageRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "List inbound messages, newest first",
      security,
      middleware: requirePermission("messages:read"),
      request: {
        query: PageQuery.extend({
          status: z.enum(MESSAGE_STATUSES).optional().openapi({ description: STATUS_DESCRIPTION }),
          protocol: z.string().max(50).optional(),
          message_type: z.string().max(10).optional(),
          control_id: z.string().max(200).optional(),
          sender: z.string().max(500).optional(),
        }),
      },
      responses: {
        200: { description: "Page of messages", content: json(pageOf("messages", MessageSummary)) },
        ...commonErrors,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const filter = {
        ...(q.status ? { status: q.status } : {}),
        ...(q.protocol ? { protocol: q.protocol } : {}),
        ...(q.message_type ? { messageType: q.message_type } : {}),
        ...(q.control_id ? { controlId: q.control_id } : {}),
        ...(q.sender ? { sender: q.sender } : {}),
      };
      const { rows, total } = await storeFor(c).list(filter, q.limit, q.offset);
      return c.json({ messages: rows.map(summary), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      summary: "One inbound message with its raw text, executions and resulting resources",
      security,
      middleware: requirePermission("messages:read"),
      request: { params: IdParam },
      responses: { 200: { description: "Message", content: json(MessageDetail) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const store = storeFor(c);
      const found = await store.get(c.req.valid("param").id);
      if (!found) throw notFound("Message not found", "MESSAGE_NOT_FOUND");
      const row = await store.withRaw(found);
      return c.json({ ...summary(row), raw: row.raw, source: row.source ?? null, executions: row.executions, resources: row.resources }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/reprocess",
      tags,
      summary: "Route a processed, unrouted or failed message again (it goes to the head of its sender's queue)",
      security,
      middleware: requirePermission("messages:manage"),
      request: { params: IdParam },
      responses: { 202: { description: "Queued", content: json(MessageSummary) }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => {
      const store = storeFor(c);
      const row = await store.get(c.req.valid("param").id);
      if (!row) throw notFound("Message not found", "MESSAGE_NOT_FOUND");
      if (!row.sender) throw conflict("A rejected (unidentifiable) message cannot be reprocessed", "MESSAGE_NOT_REPROCESSABLE");
      if (row.status === "received") throw conflict("The message is already waiting to be processed", "MESSAGE_PENDING");
      await store.requeue(row.id);
      await kickRouters(c, [row.sender]);
      return c.json(summary({ ...row, status: "received", error: null, attempts: 0 }), 202);
    },
  );
