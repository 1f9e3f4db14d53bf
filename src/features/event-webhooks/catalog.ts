// The catalog of the service's own events that customers can subscribe webhook endpoints to:
// each type with what it means and the fields of its `data` (the payload's `data` member). The
// features that raise them build the events themselves (platform/events.ts); this list is what
// the API shows (GET /api/v1/webhook-event-types), what endpoint subscriptions are checked
// against, and what docs/webhooks.md documents.

export interface EventField {
  name: string;
  type: "string" | "number" | "boolean" | "object" | "array" | "string|null" | "number|null";
  description: string;
}

export interface EventTypeDef {
  /** `<area>.<thing>.<what happened>`; a FHIR type pattern is written `fhir.{ResourceType}.created`. */
  type: string;
  description: string;
  data: readonly EventField[];
}

const f = (name: string, type: EventField["type"], description: string): EventField => ({ name, type, description });

const FHIR_CHANGE_FIELDS = [
  f("resource_type", "string", "The resource's type, e.g. Observation"),
  f("id", "string", "The resource's logical id"),
  f("version_id", "string", "meta.versionId of the version the change produced (of the deleted version for a delete)"),
  f("reference", "string", "`<type>/<id>`, relative to the organization's FHIR base"),
] as const;

/** The FHIR change events: one per action, for every resource type (`fhir.Observation.created`, ...). */
export const FHIR_ACTIONS = ["created", "updated", "deleted"] as const;
export type FhirAction = (typeof FHIR_ACTIONS)[number];

export const EVENT_TYPES: readonly EventTypeDef[] = [
  {
    type: "device.reading.created",
    description: "A device reading was stored as a new or changed Observation (webhook, upload, sync, MQTT, companion app).",
    data: [
      f("observation_id", "string", "The Observation in the organization's FHIR store"),
      f("version_id", "string|null", "Its meta.versionId"),
      f("patient_id", "string", "The Patient the reading belongs to"),
      f("device_id", "string", "The Device that measured it"),
      f("metric", "string", "The reading's metric (e.g. heart_rate)"),
      f("value", "number|null", "The value, when the reading has one"),
      f("unit", "string|null", "Its unit"),
      f("effective_at", "string", "When it was measured (ISO 8601)"),
    ],
  },
  {
    type: "alert.raised",
    description: "A threshold or absence alert rule opened an alert (once per episode).",
    data: [
      f("alert_id", "string", "The alert (GET /api/v1/alerts/{id})"),
      f("rule_id", "string", "The rule that fired"),
      f("patient_id", "string", "The Patient"),
      f("kind", "string", "The rule's kind (high, low, rapid_change, data_absence, ...)"),
      f("severity", "string", "The rule's severity"),
      f("metric", "string|null", "The metric watched"),
      f("device_id", "string|null", "The Device, when the rule watches one"),
      f("value", "number|null", "The value (or change, or silence in minutes) that breached"),
      f("limit", "number|null", "The limit it breached"),
      f("message", "string", "A human-readable summary"),
      f("started_at", "string", "When the excursion began"),
      f("detected_issue_id", "string|null", "The DetectedIssue written for it"),
    ],
  },
  {
    type: "alert.acknowledged",
    description: "A clinician acknowledged an alert.",
    data: [f("alert_id", "string", "The alert"), f("rule_id", "string", "Its rule"), f("patient_id", "string", "The Patient"), f("by", "string|null", "Who acknowledged it"), f("note", "string|null", "The note given")],
  },
  {
    type: "alert.resolved",
    description: "A clinician resolved an alert.",
    data: [f("alert_id", "string", "The alert"), f("rule_id", "string", "Its rule"), f("patient_id", "string", "The Patient"), f("by", "string|null", "Who resolved it"), f("note", "string|null", "The note given")],
  },
  {
    type: "execution.completed",
    description: "A pipeline execution finished with every node succeeded (or skipped).",
    data: [
      f("execution_id", "string", "The execution (GET /api/executions/{id})"),
      f("pipeline_id", "string", "Its pipeline"),
      f("pipeline_version", "number", "The pipeline version that ran"),
      f("trigger", "string", "What started it (manual, webhook, schedule, hl7, event, ...)"),
      f("test_mode", "boolean", "A test run (no writes outside the service)"),
      f("duration_ms", "number", "Its duration"),
    ],
  },
  {
    type: "execution.failed",
    description: "A pipeline execution finished failed: a node failed and stopped it.",
    data: [
      f("execution_id", "string", "The execution"),
      f("pipeline_id", "string", "Its pipeline"),
      f("pipeline_version", "number", "The pipeline version that ran"),
      f("trigger", "string", "What started it"),
      f("test_mode", "boolean", "A test run"),
      f("duration_ms", "number", "Its duration"),
      f("error", "object", "{code, message, node_id, node_type} of the failure"),
    ],
  },
  {
    type: "inbound.message.failed",
    description: "An inbound message (HL7 v2, X12, ...) failed for good: a permanent error, or its retries ran out. It can be reprocessed.",
    data: [
      f("message_id", "string", "The inbound message (GET /api/hl7/messages/{id})"),
      f("protocol", "string", "Its protocol (hl7v2, x12, ...)"),
      f("sender", "string", "The sender's line it arrived on"),
      f("control_id", "string|null", "The message's control id"),
      f("attempts", "number", "Attempts made"),
      f("error", "object", "{code, message} of the last failure"),
    ],
  },
  {
    type: "sync.completed",
    description: "A manual device sync finished: every data type fetched (state completed) or some failed (state partially_failed).",
    data: [
      f("sync_id", "string", "The sync (GET /api/v1/devices/{device_id}/syncs/{sync_id})"),
      f("device_id", "string", "The Device synced"),
      f("state", "string", "completed or partially_failed"),
      f("data_types", "array", "The data types synced"),
      f("observations_created", "number", "New Observations"),
      f("observations_updated", "number", "Changed Observations"),
      f("readings_rejected", "number", "Readings refused as invalid"),
    ],
  },
  {
    type: "sync.failed",
    description: "A manual device sync finished with every data type failed.",
    data: [f("sync_id", "string", "The sync"), f("device_id", "string", "The Device"), f("state", "string", "failed"), f("data_types", "array", "The data types"), f("errors", "array", "The first failures' reasons")],
  },
  {
    type: "webhook.endpoint.disabled",
    description: "One of the organization's webhook endpoints was disabled after failing (410 Gone, or failing without a success for the disable window). Sent to the organization's other endpoints.",
    data: [
      f("endpoint_id", "string", "The disabled endpoint"),
      f("url", "string", "Its URL"),
      f("disabled_reason", "string", "gone or failing"),
      f("disabled_at", "string", "When"),
      f("detail", "string", "What its last failure was"),
    ],
  },
  ...FHIR_ACTIONS.map((action) => ({
    type: `fhir.{ResourceType}.${action}`,
    description: `A resource of the organization's FHIR store was ${action} (every resource type; e.g. fhir.Observation.${action}).`,
    data: FHIR_CHANGE_FIELDS,
  })),
];

/** The event types that are not FHIR changes. */
export const FIXED_EVENT_TYPES: readonly string[] = EVENT_TYPES.map((e) => e.type).filter((t) => !t.startsWith("fhir."));
const FIXED = new Set(FIXED_EVENT_TYPES);

/** Whether a name is a FHIR resource type (the FHIR store's definitions; passed in so this module stays pure). */
export type IsResourceType = (name: string) => boolean;

/** The FHIR change type of `type` (fhir.<ResourceType>.<action>), if it is one. */
export function fhirEventParts(type: string, isResourceType: IsResourceType): { resourceType: string; action: FhirAction } | undefined {
  const m = /^fhir\.([^.]+)\.([^.]+)$/.exec(type);
  if (!m || !isResourceType(m[1] as string) || !(FHIR_ACTIONS as readonly string[]).includes(m[2] as string)) return undefined;
  return { resourceType: m[1] as string, action: m[2] as FhirAction };
}

/** Is `type` an event type of the catalog (a fixed one, or fhir.<ResourceType>.<action>)? */
export function isEventType(type: string, isResourceType: IsResourceType): boolean {
  return FIXED.has(type) || fhirEventParts(type, isResourceType) !== undefined;
}
