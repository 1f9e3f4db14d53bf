// An endpoint's delivery log (its destination queue's messages and each attempt) and replay: one
// event, or the events of a time range the endpoint is subscribed to, put back in its queue with
// the same delivery ids (`webhook-id`), so a receiver that de-duplicates sees a replay as one.
import { ApiError, badRequest, conflict, notFound } from "../../../platform/errors";
import type { OrgContext } from "../../../platform/org-context";
import type { MessageState } from "../../destinations";
import type { PublishedEvent } from "../../../platform/events";
import { type DeliveryPort, EVENT_SOURCE, messageIdOf, messageOf } from "../delivery";
import { WebhookStore } from "../store";
import { subscribed } from "../subscriptions";
import type { WebhookEndpointRow, WebhookEventRow } from "../tables";
import { getEndpoint } from "./endpoints";

/** Events one time-range replay puts back at most (more: replay the rest from the last one's time). */
export const MAX_REPLAY_EVENTS = 1_000;
const REPLAY_PAGE = 100;

function destinationOf(row: WebhookEndpointRow): string {
  if (!row.destinationId) throw new ApiError(503, "WEBHOOK_DESTINATION_MISSING", `Webhook endpoint ${row.id} has no delivery queue yet; update it to create one`);
  return row.destinationId;
}

export async function listDeliveries(ctx: OrgContext, port: DeliveryPort, endpointId: string, q: { state?: MessageState; event_type?: string; since?: string; limit: number; cursor?: string }) {
  const { row } = await getEndpoint(ctx, endpointId);
  return port.listMessages(ctx, destinationOf(row), { limit: q.limit, ...(q.state ? { state: q.state } : {}), ...(q.event_type ? { label: q.event_type } : {}), ...(q.since ? { since: q.since } : {}), ...(q.cursor ? { cursor: q.cursor } : {}) });
}

export async function getDelivery(ctx: OrgContext, port: DeliveryPort, endpointId: string, messageId: string) {
  const { row } = await getEndpoint(ctx, endpointId);
  const found = await port.messageAttempts(ctx, destinationOf(row), messageId).catch((e: unknown) => {
    if (e instanceof ApiError && e.status === 404) return undefined;
    throw e;
  });
  if (!found || found.message.source?.kind !== EVENT_SOURCE) throw notFound(`Delivery ${messageId} not found`, "WEBHOOK_DELIVERY_NOT_FOUND");
  return found;
}

const eventOf = (r: WebhookEventRow): PublishedEvent => ({ type: r.type, id: r.id, occurred_at: r.occurredAt, data: r.data });

export type ReplayRequest = { event_id: string } | { from: string; to: string };

export async function replay(ctx: OrgContext, port: DeliveryPort, endpointId: string, req: ReplayRequest): Promise<{ replayed: { event_id: string; delivery_id: string }[]; truncated: boolean }> {
  const { row } = await getEndpoint(ctx, endpointId);
  if (!row.enabled) throw conflict(`Webhook endpoint ${row.id} is disabled; enable it before replaying`, "WEBHOOK_ENDPOINT_DISABLED");
  const destinationId = destinationOf(row);
  const store = new WebhookStore(ctx.db);
  let events: WebhookEventRow[];
  let truncated = false;
  if ("event_id" in req) {
    const event = await store.event(ctx.orgId, req.event_id);
    if (!event) throw notFound(`Event ${req.event_id} not found (events are kept for replay for a limited time)`, "WEBHOOK_EVENT_NOT_FOUND");
    if (!subscribed(row.eventTypes, event.type)) throw conflict(`Webhook endpoint ${row.id} is not subscribed to ${event.type}`, "WEBHOOK_EVENT_NOT_SUBSCRIBED");
    events = [event];
  } else {
    const [from, to] = [new Date(req.from).toISOString(), new Date(req.to).toISOString()];
    if (from > to) throw badRequest("Invalid replay range", [{ path: "from", message: "is after to" }]);
    events = [];
    let after: WebhookEventRow | undefined;
    for (;;) {
      const page = await store.eventsBetween(ctx.orgId, from, to, REPLAY_PAGE, after && { occurredAt: after.occurredAt, id: after.id });
      events.push(...page.filter((e) => subscribed(row.eventTypes, e.type)));
      if (events.length >= MAX_REPLAY_EVENTS) {
        truncated = events.length > MAX_REPLAY_EVENTS || page.length === REPLAY_PAGE;
        events = events.slice(0, MAX_REPLAY_EVENTS);
        break;
      }
      if (page.length < REPLAY_PAGE) break;
      after = page[page.length - 1];
    }
  }
  const messages = await Promise.all(events.map((e) => messageOf(row.id, eventOf(e))));
  for (let i = 0; i < messages.length; i += REPLAY_PAGE) await port.redeliver(ctx, destinationId, messages.slice(i, i + REPLAY_PAGE));
  return { replayed: await Promise.all(events.map(async (e) => ({ event_id: e.id, delivery_id: await messageIdOf(row.id, e.id) }))), truncated };
}
