// The service's own events, as features raise them for delivery out of the service (customer
// webhooks, src/features/webhooks/): one shape for every kind, named `<area>.<thing>.<what happened>`.
// The list of types is the webhooks feature's catalog; a feature raises an event with its
// org context's `publish` and knows nothing of who receives it.

export interface PublishedEvent {
  /** e.g. `device.reading.created`, `alert.raised`, `execution.failed`, `fhir.Patient.updated`. */
  type: string;
  /** Stable for the event: a replay or a second raise of the same event carries the same id. */
  id: string;
  /** ISO 8601. */
  occurred_at: string;
  /** The event's body, as the event type documents it. */
  data: Record<string, unknown>;
}
