// How this deployment delivers out: the transport of each destination target kind, and the
// observers the owners of managed destinations (Subscriptions, webhook endpoints) give the queue.
import { bridgeTransport } from "../features/bridges";
import { type AttemptObservers, connectorTransport, type Transports, urlTransport } from "../features/destinations";
import { destinationsPort, observeAttempt } from "../features/event-webhooks";
import { subscriptionAttemptObserver, websocketTransport } from "../features/subscriptions";

export const DELIVERY_TRANSPORTS: Transports = {
  connector: connectorTransport,
  url: urlTransport,
  bridge: bridgeTransport,
  websocket: websocketTransport,
};

export const ATTEMPT_OBSERVERS: AttemptObservers = {
  // A Subscription turns active on a delivery, error after a failure streak (docs/subscriptions.md).
  subscription: subscriptionAttemptObserver,
  // A webhook endpoint answering 410, or failing for days, is disabled (docs/webhooks.md).
  webhook: (ctx, observation) => observeAttempt(ctx, observation, destinationsPort),
};
