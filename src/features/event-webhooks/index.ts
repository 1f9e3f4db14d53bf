// Customer webhooks for the service's own events: what the rest of the service uses. The
// composition root wires `publishEvents` as the org context's `publish`, passes
// `observeAttempt` to the destination queue as the "webhook" owner's observer, and mounts the
// routes; the FHIR store's after-commit hook maps its changes with `fhirChangeEvent`.
export { EVENT_TYPES, type EventTypeDef, isEventType } from "./catalog";
export { type DeliveryPort, messageIdOf } from "./delivery";
export { type FhirChange, fhirChangeEvent } from "./fhir-events";
export { DISABLE_AFTER_MS, observeAttempt } from "./observer";
export { publishEvents } from "./publish";
export { EVENT_RETENTION_DAYS } from "./retention";
export { webhookEventTypeRoutes } from "./routes/event-types";
export { webhookEndpointRoutes } from "./routes/endpoints";
