// Inbound messages of every protocol: the ingestion endpoints the bridge (or any HTTP
// sender) posts batches to, one per registered protocol adapter (plus aliases kept from
// before, e.g. the HL7 endpoint), and the message store's list/view/reprocess API.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import type { ProtocolAlias } from "../adapter";
import type { InboundAdapters } from "../adapters";
import { IdParam, IngestBody, IngestResponse, MessageDetail, MessageListQuery, MessageSummary, ProtocolParam, SendersResponse, StatsQuery, StatsResponse, detail, summary } from "../schemas";
import { getMessage, ingestBatch, listMessages, listSenders, messageStats, reprocessMessage } from "../use-cases/messages";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, notAudited } from "../../audit";

const tags = ["Inbound messages"];

const ingestDescription =
  "Stores each message durably and idempotently (per sender and control id; HL7 v2: sending application|facility and MSH-10), " +
  "answers per message with accepted, duplicate or rejected and the acknowledgement to send, then routes accepted messages to " +
  "the organization's deployed pipelines in arrival order per sender.";

const ingestResponses = { 200: { description: "Per-message results, in request order", content: json(IngestResponse) }, ...commonErrors };
const ingestBody = { body: { required: true, content: json(IngestBody) } };
// Clinical traffic, not a management action: an AuditEvent per message would double the writes of a feed.
const ingestAudit = notAudited(
  "each message is kept in the inbound message log with its processing state (GET /api/hl7/messages); the resources it becomes are FHIR writes the store audits",
);

/** POST /v1/inbound/{protocol}/messages for every registered adapter, and each alias. */
export function inboundIngestRoutes(adapters: InboundAdapters, aliases: readonly ProtocolAlias[]) {
  const router = createRouter<HttpEnv>().openapi(
    createRoute({
      method: "post",
      operationId: "ingestInboundMessages", path: "/v1/inbound/{protocol}/messages",
      audit: ingestAudit,
      tags,
      summary: "Ingest a batch of inbound messages of one protocol (the bridge's forwarding endpoint)",
      description: `${ingestDescription} Protocols: ${adapters.protocols().join(", ")}; another answers 404 UNKNOWN_PROTOCOL.`,
      security,
      middleware: requirePermission("messages:ingest"),
      request: { params: ProtocolParam, ...ingestBody },
      responses: { ...ingestResponses, ...notFoundError },
    }),
    async (c) => {
      const adapter = adapters.require(c.req.valid("param").protocol);
      const results = await ingestBatch(c.get("ctx"), adapter, c.req.valid("json").messages);
      return c.json({ results }, 200);
    },
  );
  for (const alias of aliases) {
    router.openapi(
      createRoute({
        method: "post",
        path: alias.path,
        audit: ingestAudit,
        operationId: `ingest${alias.protocol.charAt(0).toUpperCase()}${alias.protocol.slice(1)}Messages`,
        tags,
        summary: alias.summary,
        description: `${ingestDescription} The same as POST /api/v1/inbound/${alias.protocol}/messages.`,
        security,
        middleware: requirePermission("messages:ingest"),
        request: ingestBody,
        responses: ingestResponses,
      }),
      async (c) => {
        const adapter = adapters.require(alias.protocol);
        const results = await ingestBatch(c.get("ctx"), adapter, c.req.valid("json").messages);
        return c.json({ results }, 200);
      },
    );
  }
  return router;
}

/** The message store's list (with content search through the adapters' field paths), view and reprocess. */
export const inboundMessageRoutes = (adapters: InboundAdapters) =>
  createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "List inbound messages of every protocol, newest first",
      description:
        "Filtered by status, protocol, type, control id and sender (exact), by text the message contains (`text`), and by the value at a field path (`field` and `value`, e.g. field=PID-3&value=4711 for a medical record number). " +
        "A field search reads the newest 2,000 messages whose text contains the value; `total_count` counts the matches among them.",
      security,
      middleware: requirePermission("messages:read"),
      request: { query: MessageListQuery },
      responses: {
        200: { description: "Page of messages", content: json(pageOf("messages", MessageSummary)) },
        ...commonErrors,
      },
    }),
    async (c) => {
      const { rows, total } = await listMessages(c.get("ctx"), adapters, c.req.valid("query"));
      return c.json({ messages: rows.map(summary), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/stats",
      tags,
      summary: "Per inbound route (protocol and sender): received, filtered, queued, sent and errored messages over the last hours, hour by hour",
      security,
      middleware: requirePermission("messages:read"),
      request: { query: StatsQuery },
      responses: { 200: { description: "Counts per route", content: json(StatsResponse) }, ...commonErrors },
    }),
    async (c) => c.json(await messageStats(c.get("ctx"), c.req.valid("query").hours), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/senders",
      tags,
      summary: "The senders inbound messages came from (for a sender filter), most recent first",
      security,
      middleware: requirePermission("messages:read"),
      responses: { 200: { description: "Senders seen", content: json(SendersResponse) }, ...commonErrors },
    }),
    async (c) => {
      const senders = await listSenders(c.get("ctx"));
      return c.json({ senders: senders.map((s) => ({ protocol: s.protocol, sender: s.sender, count: s.count, last_received_at: s.lastReceivedAt })) }, 200);
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
    async (c) => c.json(detail(await getMessage(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/reprocess",
      audit: audited("hl7_message.reprocess", byId),
      tags,
      summary: "Route a processed, unrouted or failed message again (it goes to the head of its sender's queue)",
      security,
      middleware: requirePermission("messages:manage"),
      request: { params: IdParam },
      responses: { 202: { description: "Queued", content: json(MessageSummary) }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => c.json(summary(await reprocessMessage(c.get("ctx"), c.req.valid("param").id)), 202),
  );
