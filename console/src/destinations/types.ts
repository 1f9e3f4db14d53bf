// The destinations and bridges APIs' shapes (/api/v1/destinations, /api/v1/bridges), as the
// OpenAPI document (and so the generated client) declares them.
import type { components } from "../../../clients/typescript/api.generated";

export type Destination = components["schemas"]["Destination"];
export type DestinationInput = components["schemas"]["DestinationInput"];
export type DeliveryTarget = components["schemas"]["DeliveryTarget"];
export type QueuedMessage = components["schemas"]["QueuedMessage"];
export type DeliveryAttempt = components["schemas"]["DeliveryAttempt"];
export type Bridge = components["schemas"]["Bridge"];
export type BridgeWithCredential = components["schemas"]["BridgeWithCredential"];

export const MESSAGE_STATES = ["queued", "in_flight", "delivered", "dead", "skipped"] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

/** States an operator may purge (the API never deletes a message in flight). */
export const PURGEABLE_STATES = ["queued", "delivered", "dead", "skipped"] as const;
