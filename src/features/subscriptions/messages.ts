// The messages a subscription is sent, as the destination queue and the websockets carry them:
// an event notification per event, handshakes and heartbeats, each with its stable delivery id.
// An R4 criteria subscription with no payload gets an empty body (a POST with no body; `ping <id>`
// on a websocket); everything else is a notification Bundle (notification.ts).
import type { OrgContext } from "../../platform/org-context";
import { type NotificationEvent, notificationBundle } from "./notification";
import type { NotificationMessage } from "./outbound";
import { subscriptionsPrincipal } from "./principal";
import type { SubscriptionSpec } from "./subscription";

/** The org's FHIR base, as notifications name resources. */
export const fhirBaseOf = (ctx: OrgContext) => ctx.fhir(subscriptionsPrincipalOf(ctx), { onChange: undefined }).baseUrl;

const subscriptionsPrincipalOf = (ctx: OrgContext) => subscriptionsPrincipal(ctx.orgId);

/** A notification Bundle's media type: the subscription's `channel.payload` (application/fhir+json when it names none). */
const contentTypeOf = (spec: SubscriptionSpec) => spec.mimeType ?? "application/fhir+json";

/** One event's notification (delivery id `<subscription>:<event number>`). */
export function eventMessage(spec: SubscriptionSpec, baseUrl: string, event: NotificationEvent, eventsSinceStart: number): NotificationMessage {
  const body = spec.emptyPost
    ? ""
    : JSON.stringify(notificationBundle({ baseUrl, subscriptionId: spec.id, ...(spec.topic ? { topic: spec.topic.url } : {}), status: spec.status === "requested" ? "active" : spec.status, type: "event-notification", eventsSinceStart, content: spec.payload, events: [event] }));
  return { id: `${spec.id}:${event.eventNumber}`, key: spec.id, body, ...(spec.emptyPost ? {} : { content_type: contentTypeOf(spec) }), source: { kind: "subscription", id: spec.id }, label: `event ${event.eventNumber}` };
}

/** A handshake or heartbeat notification (no events). */
export function statusMessage(spec: SubscriptionSpec, baseUrl: string, type: "handshake" | "heartbeat", eventsSinceStart: number, id: string): NotificationMessage {
  const body = spec.emptyPost ? "" : JSON.stringify(notificationBundle({ baseUrl, subscriptionId: spec.id, ...(spec.topic ? { topic: spec.topic.url } : {}), status: spec.status === "requested" ? "requested" : spec.status, type, eventsSinceStart, content: spec.payload, events: [] }));
  return { id, key: spec.id, body, ...(spec.emptyPost ? {} : { content_type: contentTypeOf(spec) }), source: { kind: "subscription", id: spec.id }, label: type };
}
