// How this deployment delivers out: the transport of each destination target kind, and the
// observers the owners of managed destinations (Subscriptions, webhook endpoints) give the queue.
import { bridgeTransport } from "../features/bridges";
import { type AttemptObservers, connectorTransport, failed, type Transports, urlTransport } from "../features/destinations";
import { destinationsPort, observeAttempt } from "../features/event-webhooks";

/** A target kind this build cannot reach yet holds its messages (retried) rather than losing them. */
const unavailable = (what: string) => ({ deliver: async () => failed("configuration", `${what} are not available in this build`) });

export const DELIVERY_TRANSPORTS: Transports = {
  connector: connectorTransport,
  url: urlTransport,
  bridge: bridgeTransport,
  websocket: unavailable("Websocket notifications"),
};

export const ATTEMPT_OBSERVERS: AttemptObservers = {
  // A webhook endpoint answering 410, or failing for days, is disabled (docs/webhooks.md).
  webhook: (ctx, observation) => observeAttempt(ctx, observation, destinationsPort),
};
