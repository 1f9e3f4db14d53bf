// The SubscriptionTopics this service declares (R4 has no SubscriptionTopic resource: they are
// canonical URLs, listed in the CapabilityStatement and by Subscription/$topic-list), each with
// the changes that trigger it. A topic-based Subscription names one in `criteria` and narrows it
// with `backport-filter-criteria` searches on the focus resource (filters.ts).
import type { FhirChange } from "../fhir";

/** Every topic's canonical URL starts with this (docs/subscriptions.md lists them). */
export const TOPIC_BASE = "https://cdis.dev/fhir/SubscriptionTopic";

export interface Topic {
  url: string;
  title: string;
  /** The focus resource types (a filter must search one of them). */
  resourceTypes: readonly string[];
  /** Whether a change of the focus triggers the topic. */
  triggers(change: FhirChange): boolean;
}

const TRIGGERED_TYPES = ["Patient", "Encounter", "Observation", "DiagnosticReport", "Condition", "MedicationRequest", "ServiceRequest", "AllergyIntolerance", "Procedure", "Immunization", "DocumentReference", "Appointment", "Device", "Flag", "DetectedIssue", "Communication", "Task"] as const;

const status = (r: unknown) => (r as { status?: string } | undefined)?.status;

/** An encounter whose status became `to` (or was stored with it at creation). */
const becameStatus = (change: FhirChange, to: readonly string[]) =>
  change.resourceType === "Encounter" && change.action !== "delete" && to.includes(status(change.resource) ?? "") && !to.includes(status(change.previous) ?? "");

const fromDevice = (r: unknown) => {
  const device = (r as { device?: { reference?: string } }).device?.reference;
  return typeof device === "string" && device.length > 0;
};

export const TOPICS: readonly Topic[] = [
  ...(["create", "update", "delete"] as const).map(
    (action): Topic => ({
      url: `${TOPIC_BASE}/resource-${action}d`,
      title: `A resource was ${action}d (filter by type: e.g. Observation?code=…)`,
      resourceTypes: TRIGGERED_TYPES,
      triggers: (c) => c.action === action,
    }),
  ),
  {
    url: `${TOPIC_BASE}/resource-changed`,
    title: "A resource was created, updated or deleted",
    resourceTypes: TRIGGERED_TYPES,
    triggers: () => true,
  },
  {
    url: `${TOPIC_BASE}/encounter-start`,
    title: "An encounter started (its status became in-progress)",
    resourceTypes: ["Encounter"],
    triggers: (c) => becameStatus(c, ["in-progress"]),
  },
  {
    url: `${TOPIC_BASE}/encounter-end`,
    title: "An encounter ended (its status became finished)",
    resourceTypes: ["Encounter"],
    triggers: (c) => becameStatus(c, ["finished"]),
  },
  {
    url: `${TOPIC_BASE}/device-reading`,
    title: "A new reading from a device (an Observation with a device, created)",
    resourceTypes: ["Observation"],
    triggers: (c) => c.resourceType === "Observation" && c.action === "create" && fromDevice(c.resource),
  },
  {
    url: `${TOPIC_BASE}/alert-raised`,
    title: "An alert was raised (a Flag or DetectedIssue created active, or a Flag made active)",
    resourceTypes: ["Flag", "DetectedIssue"],
    triggers: (c) =>
      (c.resourceType === "Flag" && c.action !== "delete" && status(c.resource) === "active" && status(c.previous) !== "active") ||
      (c.resourceType === "DetectedIssue" && c.action === "create"),
  },
];

const BY_URL = new Map(TOPICS.map((t) => [t.url, t]));

export function topicOf(url: string): Topic | undefined {
  return BY_URL.get(url.split("|")[0]!);
}
