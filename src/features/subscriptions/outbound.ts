// What subscriptions need of the destination queues (features/destinations, the lead's core):
// a managed destination per Subscription and enqueueing to it. The composition root passes the
// core's functions (src/main/fhir-changes.ts); the shapes are the core's (destinations/model.ts),
// restated structurally so this feature reaches the core only through what it is handed.
import type { OrgContext } from "../../platform/org-context";

export type SubscriptionOwner = { kind: "subscription"; id: string };

export type SubscriptionTarget = { kind: "url"; url: string } | { kind: "websocket"; subscription_id: string };

export interface NotificationMessage {
  /** The delivery id: `<subscription>:<event number>`, `<subscription>:handshake:<version>`, `<subscription>:heartbeat:<time>`. */
  id: string;
  key?: string;
  body: string;
  content_type?: string;
  source?: { kind: string; id: string };
  label?: string;
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
