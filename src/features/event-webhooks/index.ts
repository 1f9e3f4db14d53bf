// Customer webhooks for the service's own events: what the rest of the service uses. The
// composition root wires `publishEvents` (over `destinationsPort`) as the org context's
// `publish`, passes `observeAttempt` to the destination queue as the "webhook" owner's
// observer, and mounts the routes; a FHIR change listener maps changes with `fhirChangeEvent`.
export { EVENT_TYPES, type EventTypeDef, isEventType } from "./catalog";
export { type DeliveryPort, messageIdOf, subjectOf } from "./delivery";
export { destinationsPort } from "./destinations-port";
export { type FhirChange, fhirChangeEvent } from "./fhir-events";
export { DISABLE_AFTER_MS, observeAttempt } from "./observer";
export { publishEvents } from "./publish";
export { EVENT_RETENTION_DAYS } from "./retention";
export { webhookEventTypeRoutes } from "./routes/event-types";
export { webhookEndpointRoutes } from "./routes/endpoints";
