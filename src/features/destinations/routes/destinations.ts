// /api/v1/destinations: named outbound endpoints with durable queues (docs/destinations.md).
// Admins configure them and act on their messages; admins and service keys read them and enqueue.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, security } from "../../../platform/http/schemas";
import type { HttpEnv } from "../../../platform/http/http-env";
import { requirePermission } from "../../tenancy";
import { audited, byId, newId, notAudited } from "../../audit";
import {
  AttemptSchema,
  Destination,
  DestinationActivitySchema,
  DestinationBody,
  DestinationListQuery,
  DestinationPatch,
  EnqueueBody,
  IdParam,
  MessageIdsBody,
  MessageListQuery,
  MessageParam,
  PurgeBody,
  QueuedMessageSchema,
  presentActivity,
  presentAttempt,
  presentDestination,
  presentMessage,
} from "../schemas";
import {
  actOnMessages,
  createDestination,
  ACTIVITY_HOURS,
  deleteDestination,
  destinationsActivity,
  enqueue,
  getDestination,
  listDestinations,
  listMessages,
  messageAttempts,
  setDestinationState,
  updateDestination,
} from "../use-cases/destinations";

const tags = ["Destinations"];
const manage = requirePermission("connectors:manage");
const read = requirePermission("messages:read");
const operate = requirePermission("messages:manage");
const ingest = requirePermission("messages:ingest");
const Affected = z.object({ affected: z.number().int() }).openapi("DestinationActionResult");
const ok = (description: string) => ({ 200: { description, content: json(Destination) }, ...commonErrors, ...notFoundError });
const acted = { 200: { description: "Messages touched", content: json(Affected) }, ...commonErrors, ...notFoundError };

export const destinationRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List destinations with their queue figures", security, middleware: read, request: { query: DestinationListQuery }, responses: { 200: { description: "Page", content: json(pageOf("destinations", Destination)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { items, total } = await listDestinations(c.get("ctx"), limit, offset);
      return c.json({ destinations: items.map((d) => presentDestination(d.row, d.figures)), total_count: total }, 200);
    },
  )
  // Before /{id}, which would take "activity" for an id.
  .openapi(
    createRoute({
      method: "get",
      path: "/activity",
      tags,
      summary: `Destinations with what each queue received, still holds, sent and failed per hour over the last ${ACTIVITY_HOURS} hours (the channels dashboard)`,
      security,
      middleware: read,
      request: { query: DestinationListQuery },
      responses: {
        200: {
          description: "Page",
          content: json(
            z.object({
              since: z.string().openapi({ description: "The start of the first hour (UTC)" }),
              destinations: z.array(DestinationActivitySchema),
              total_count: z.number().int(),
            }),
          ),
        },
        ...commonErrors,
      },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { since, items, total } = await destinationsActivity(c.get("ctx"), limit, offset);
      return c.json({ since, destinations: items.map(presentActivity), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", audit: audited("destination.create", newId), tags, summary: "Create a destination (admin)", security, middleware: manage, request: { body: { required: true, content: json(DestinationBody) } }, responses: { 201: { description: "Created", content: json(Destination) }, ...commonErrors, ...conflictError } }),
    async (c) => c.json(presentDestination(await createDestination(c.get("ctx"), c.req.valid("json")), null), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a destination with its queue figures", security, middleware: read, request: { params: IdParam }, responses: ok("Destination") }),
    async (c) => {
      const { row, figures } = await getDestination(c.get("ctx"), c.req.valid("param").id);
      return c.json(presentDestination(row, figures), 200);
    },
  )
  .openapi(
    createRoute({ method: "patch", path: "/{id}", audit: audited("destination.update", byId), tags, summary: "Change a destination (admin); waiting messages go to the new target", security, middleware: manage, request: { params: IdParam, body: { required: true, content: json(DestinationPatch) } }, responses: { ...ok("Updated"), ...conflictError } }),
    async (c) => c.json(presentDestination(await updateDestination(c.get("ctx"), c.req.valid("param").id, c.req.valid("json")), null), 200),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", audit: audited("destination.delete", byId), tags, summary: "Delete a destination whose queue is empty (admin)", security, middleware: manage, request: { params: IdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => {
      await deleteDestination(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/pause", audit: audited("destination.pause", byId), tags, summary: "Pause delivery: messages wait (admin)", security, middleware: operate, request: { params: IdParam }, responses: ok("Paused") }),
    async (c) => c.json(presentDestination(await setDestinationState(c.get("ctx"), c.req.valid("param").id, "paused"), null), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/resume", audit: audited("destination.resume", byId), tags, summary: "Resume delivery (admin)", security, middleware: operate, request: { params: IdParam }, responses: ok("Resumed") }),
    async (c) => c.json(presentDestination(await setDestinationState(c.get("ctx"), c.req.valid("param").id, "active"), null), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/messages",
      audit: notAudited("Data flow, as inbound messages are: each message is on the queue's record with its source"),
      tags,
      summary: "Enqueue messages (admin, service)",
      security,
      middleware: ingest,
      request: { params: IdParam, body: { required: true, content: json(EnqueueBody) } },
      responses: { 202: { description: "Queued", content: json(z.object({ ids: z.array(z.string()), duplicates: z.array(z.string()) })) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(await enqueue(c.get("ctx"), c.req.valid("param").id, c.req.valid("json").messages.map((m) => ({ ...m, source: { kind: "api", id: c.get("principal").keyId } }))), 202),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/messages",
      tags,
      summary: "A destination's messages, newest first",
      security,
      middleware: read,
      request: { params: IdParam, query: MessageListQuery },
      responses: { 200: { description: "Page", content: json(z.object({ messages: z.array(QueuedMessageSchema), next_cursor: z.string().nullable() })) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const page = await listMessages(c.get("ctx"), c.req.valid("param").id, c.req.valid("query"));
      return c.json({ messages: page.messages.map(presentMessage), next_cursor: page.next_cursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/messages/{message_id}",
      tags,
      summary: "A message with each attempt (what was sent, what came back)",
      security,
      middleware: read,
      request: { params: MessageParam },
      responses: { 200: { description: "Message", content: json(z.object({ message: QueuedMessageSchema, attempts: z.array(AttemptSchema) })) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { id, message_id } = c.req.valid("param");
      const found = await messageAttempts(c.get("ctx"), id, message_id);
      return c.json({ message: presentMessage(found.message), attempts: found.attempts.map(presentAttempt) }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/messages/retry", audit: audited("destination.retry", byId), tags, summary: "Retry waiting messages now (admin)", security, middleware: operate, request: { params: IdParam, body: { content: json(MessageIdsBody) } }, responses: acted }),
    async (c) => c.json(await actOnMessages(c.get("ctx"), c.req.valid("param").id, { action: "retry_now", message_ids: c.req.valid("json").message_ids }), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/messages/{message_id}/skip", audit: audited("destination.skip", byId), tags, summary: "Set a waiting or dead message aside unsent (admin)", security, middleware: operate, request: { params: MessageParam }, responses: acted }),
    async (c) => {
      const { id, message_id } = c.req.valid("param");
      return c.json(await actOnMessages(c.get("ctx"), id, { action: "skip", message_id }), 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/messages/reprocess", audit: audited("destination.reprocess", byId), tags, summary: "Queue settled messages again, with their delivery ids (admin; default: every dead one)", security, middleware: operate, request: { params: IdParam, body: { content: json(MessageIdsBody) } }, responses: acted }),
    async (c) => c.json(await actOnMessages(c.get("ctx"), c.req.valid("param").id, { action: "reprocess", message_ids: c.req.valid("json").message_ids }), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/messages/purge", audit: audited("destination.purge", byId), tags, summary: "Delete messages in the states named (admin; never those in flight)", security, middleware: operate, request: { params: IdParam, body: { required: true, content: json(PurgeBody) } }, responses: acted }),
    async (c) => c.json(await actOnMessages(c.get("ctx"), c.req.valid("param").id, { action: "purge", states: c.req.valid("json").states }), 200),
  );
