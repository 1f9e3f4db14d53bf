// What subscriptions need of the destination queues (features/destinations): a managed
// destination per Subscription and enqueueing to it. The composition root passes the core's
// functions (src/main/fhir-changes.ts: saveManagedDestination, removeManagedDestination, enqueue),
// so the tests can pass a recorder of the same shape.
import type { DeliveryTarget, OutboundMessage } from "../destinations";
import type { OrgContext } from "../../platform/org-context";

export type SubscriptionOwner = { kind: "subscription"; id: string };

export type SubscriptionTarget = Extract<DeliveryTarget, { kind: "url" | "websocket" }>;

export interface NotificationMessage extends OutboundMessage {
  /** The delivery id: `<subscription>:<event number>`, `<subscription>:handshake:<version>`, `<subscription>:heartbeat:<time>`. */
  id: string;
}

export interface SubscriptionOutbound {
  saveManagedDestination(
    ctx: OrgContext,
    owner: SubscriptionOwner,
    spec: { name: string; target: SubscriptionTarget; ordering?: "fifo"; timeout_ms?: number; http?: { method?: "POST"; headers?: Record<string, string> }; state?: "active" | "paused" },
  ): Promise<{ id: string }>;
  removeManagedDestination(ctx: OrgContext, owner: SubscriptionOwner): Promise<void>;
  enqueue(ctx: OrgContext, destinationId: string, messages: NotificationMessage[]): Promise<{ ids: string[] }>;
}
