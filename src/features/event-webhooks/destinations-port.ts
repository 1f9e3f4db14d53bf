// The delivery port over the destinations feature: each endpoint's managed destination (owner
// webhook/<endpoint id>) delivers to its URL, signed by the core's url transport with the
// endpoint's valid secrets (newest first). Ordering: per_key, one key per event subject (an
// alert, an execution, a FHIR resource: `subjectOf` in delivery.ts), so events about one thing
// arrive in the order they were raised while a receiver failing on one subject's event does not
// hold the others; ENDPOINT_CONCURRENCY messages in flight at once.
import { enqueue, listMessages, messageAttempts, redeliver, removeManagedDestination, saveManagedDestination } from "../destinations";
import type { DeliveryPort } from "./delivery";

export const ENDPOINT_CONCURRENCY = 4;
/** A receiver answers within this or the attempt is a timeout (retried). */
export const ENDPOINT_TIMEOUT_MS = 15_000;

const owner = (endpointId: string) => ({ kind: "webhook" as const, id: endpointId });

export const destinationsPort: DeliveryPort = {
  async save(ctx, endpointId, spec) {
    const destination = await saveManagedDestination(ctx, owner(endpointId), {
      name: "Webhook endpoint",
      target: { kind: "url", url: spec.url },
      ordering: "per_key",
      concurrency: ENDPOINT_CONCURRENCY,
      timeout_ms: ENDPOINT_TIMEOUT_MS,
      http: { method: "POST" },
      signing_secrets: spec.signing_secrets,
      state: spec.state,
    });
    return destination.id;
  },
  remove: (ctx, endpointId) => removeManagedDestination(ctx, owner(endpointId)),
  async enqueue(ctx, destinationId, messages) {
    await enqueue(ctx, destinationId, messages);
  },
  async redeliver(ctx, destinationId, messages) {
    await redeliver(ctx, destinationId, messages.map((m) => ({ ...m, id: m.id ?? crypto.randomUUID() })));
  },
  listMessages: (ctx, destinationId, q) => listMessages(ctx, destinationId, q),
  messageAttempts: (ctx, destinationId, messageId) => messageAttempts(ctx, destinationId, messageId),
};
