// How this deployment delivers out: the transport of each destination target kind, and the
// observers the owners of managed destinations (Subscriptions, webhook endpoints) give the queue.
import { bridgeTransport } from "../features/bridges";
import { subscriptionAttemptObserver, websocketTransport } from "../features/subscriptions";
import { type AttemptObservers, connectorTransport, type Transports, urlTransport } from "../features/destinations";

export const DELIVERY_TRANSPORTS: Transports = {
  connector: connectorTransport,
  url: urlTransport,
  bridge: bridgeTransport,
  websocket: websocketTransport,
};

export const ATTEMPT_OBSERVERS: AttemptObservers = { subscription: subscriptionAttemptObserver };
