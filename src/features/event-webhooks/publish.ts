// The org context's `publish` (platform/events.ts): each event goes to the org's enabled
// endpoints subscribed to its type. An event someone receives is recorded (webhook_events, for
// replay by time range) and one message per (event, endpoint) is enqueued on the endpoint's
// destination, whose queue signs, retries and logs each attempt. Never throws: a failure is
// logged and the work that raised the event stands (an event nobody could be told of is lost,
// which the docs say; the queue's at-least-once delivery starts at the enqueue).
import type { PublishedEvent } from "../../platform/events";
import { logger } from "../../platform/observability/log";
import type { OrgContext } from "../../platform/org-context";
import type { OutboundMessage } from "../destinations";
import type { DeliveryPort } from "./delivery";
import { messageOf } from "./delivery";
import { type LiveEndpoint, liveEndpoints } from "./endpoint-cache";
import { purgeOldEventsNow } from "./retention";
import { WebhookStore } from "./store";
import { subscribed } from "./subscriptions";

/** Which endpoints each event goes to, as messages per destination (pure but for the message ids' digest). */
export async function fanOut(events: readonly PublishedEvent[], endpoints: readonly LiveEndpoint[], except?: string): Promise<Map<string, OutboundMessage[]>> {
  const byDestination = new Map<string, OutboundMessage[]>();
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (endpoint.id === except || !subscribed(endpoint.eventTypes, event.type)) continue;
      const list = byDestination.get(endpoint.destinationId) ?? [];
      list.push(await messageOf(endpoint.id, event));
      byDestination.set(endpoint.destinationId, list);
    }
  }
  return byDestination;
}

/** `except`: an endpoint that must not receive these (the one a webhook.endpoint.disabled is about). */
export async function publishEvents(ctx: OrgContext, events: readonly PublishedEvent[], port: DeliveryPort, except?: string): Promise<void> {
  if (!events.length) return;
  try {
    const endpoints = await liveEndpoints(ctx);
    if (!endpoints.length) return;
    const wanted = events.filter((e) => endpoints.some((ep) => ep.id !== except && subscribed(ep.eventTypes, e.type)));
    if (!wanted.length) return;
    const recordedAt = new Date().toISOString();
    await new WebhookStore(ctx.db).recordEvents(wanted.map((e) => ({ orgId: ctx.orgId, id: e.id, type: e.type, occurredAt: e.occurred_at, data: e.data, recordedAt })));
    const byDestination = await fanOut(wanted, endpoints, except);
    const sent = await Promise.allSettled([...byDestination].map(([destinationId, messages]) => port.enqueue(ctx, destinationId, messages)));
    for (const s of sent) if (s.status === "rejected") logger(ctx.env).warn("webhook events not enqueued", { org: ctx.orgId, error_message: String(s.reason) });
    await purgeOldEventsNow(ctx);
  } catch (e) {
    logger(ctx.env).warn("webhook events not published", { org: ctx.orgId, events: events.length, error_message: e instanceof Error ? e.message : String(e) });
  }
}
