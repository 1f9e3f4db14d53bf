// FHIR Subscriptions (R4's criteria subscriptions and the Subscriptions R5 Backport IG's topic
// subscriptions) for the rest of the service: the change handler the composition root calls
// from the FHIR store's change hook, the destination queue's owner observer, the heartbeats the
// cron sends, the websocket channel (its Durable Object, route and transport), and what the FHIR store serves for it (operations, write checks, the topics'
// CapabilityStatement entry). Docs: docs/subscriptions.md.
import type { GuideActor } from "../fhir";
import { IG } from "./ig";
import { TOPICS } from "./topics";

export { subscriptionsOnChanges, sendHeartbeats } from "./notify";
export { subscriptionAttemptObserver } from "./observer";
export { SubscriptionSockets, websocketTransport } from "./sockets";
export { subscriptionSocketRoutes } from "./routes";
export type { SubscriptionOutbound } from "./outbound";
export { subscriptionOperations } from "./operations";
export { subscriptionBundleCheck, subscriptionWriteCheck } from "./check";
export { dueHeartbeats } from "./store";
export { ACTIVE_TTL_MS } from "./active";
export { TOPICS, TOPIC_BASE } from "./topics";

/** The Backport IG's server actor: its CapabilityStatement, the Subscription profile and every topic's canonical on the Subscription entry. */
export const subscriptionsActor: GuideActor = {
  name: "Subscriptions R5 Backport server",
  instantiates: [IG.serverCapability],
  supportedProfile: { Subscription: [IG.subscriptionProfile] },
  transactions: ["$status", "$events", "$get-ws-binding-token", "$topic-list"],
  resourceExtensions: { Subscription: TOPICS.map((t) => ({ url: IG.topicCanonical, valueCanonical: t.url })) },
};
