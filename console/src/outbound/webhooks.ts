// The customer webhooks API's shapes (/api/v1/webhook-endpoints, /api/v1/webhook-event-types),
// as the OpenAPI document (and so the generated client) declares them, and how the pages word them.
import type { components } from "../../../clients/typescript/api.generated";

export type WebhookEndpoint = components["schemas"]["WebhookEndpoint"];
export type WebhookEndpointCreated = components["schemas"]["WebhookEndpointCreated"];
export type WebhookDelivery = components["schemas"]["WebhookDelivery"];
export type WebhookEventType = components["schemas"]["WebhookEventType"];

/** enabled; disabled by hand; or disabled by the service, with why. */
export function endpointState(e: WebhookEndpoint): { badge: "active" | "disabled"; words: string } {
  if (e.enabled) return { badge: "active", words: "enabled" };
  if (e.disabled_reason === "gone") return { badge: "disabled", words: "disabled by the service: the receiver answered 410 Gone" };
  if (e.disabled_reason === "failing") return { badge: "disabled", words: "disabled by the service: no successful delivery for 5 days" };
  return { badge: "disabled", words: "disabled" };
}

/** Event types or patterns typed (separated by spaces, commas or lines), deduplicated in order. */
export const parseEventTypes = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];
