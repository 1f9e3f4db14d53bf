// What other features use of destinations: enqueueing to a destination's durable queue, the
// destinations they manage for their own resources (Subscriptions, webhook endpoints), the
// queue's figures and messages, and the words of delivery (model.ts) their transports and
// observers speak. The composition root binds the queue's Durable Object (destination-queue.ts).
export { DestinationQueue } from "./destination-queue";
export { destinationRoutes } from "./routes/destinations";
export { connectorTransport } from "./transports/connector";
export { urlTransport } from "./transports/url";
export { type DestinationSettings, destinationSettings, enqueue, listMessages, managedDestination, messageAttempts, queueStats, redeliver, removeManagedDestination, retryManagedNow, saveManagedDestination } from "./use-cases/destinations";
export type * from "./model";
export { excerpt, httpResult, failed } from "./classify";
export type { QueueFigures } from "./queue-store";
