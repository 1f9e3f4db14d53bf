// Notification Bundles of the Subscriptions Backport IG on R4: a `history` Bundle whose first
// entry is a Parameters profiled as backport-subscription-status-r4 (status, type, the event
// count, one notification-event per event with its number, time and focus), then, as the
// payload content says, nothing (empty), the focus's URL (id-only) or the focus itself (full-resource).
import type { Bundle, BundleEntry, Resource } from "../fhir";
import { IG, type NotificationType, type PayloadContent } from "./ig";
import type { SubscriptionStatus } from "./subscription";

export interface NotificationEvent {
  eventNumber: number;
  timestamp: string;
  /** The focus resource's type, id and the version the change stored. */
  focus: { type: string; id: string; version: string };
  action: "create" | "update" | "delete";
  /** The focus as the change stored it (full-resource; for a delete, its last version). */
  resource?: Resource;
}

export interface NotificationInput {
  /** The FHIR base of the org, e.g. https://host/fhir/r4/<org>. */
  baseUrl: string;
  subscriptionId: string;
  topic?: string;
  status: SubscriptionStatus;
  type: NotificationType;
  eventsSinceStart: number;
  content: PayloadContent;
  events: NotificationEvent[];
  error?: string;
}

/** The SubscriptionStatus (R4 profile) of a notification or of $status. */
export function subscriptionStatus(input: Omit<NotificationInput, "content">, content: PayloadContent = "id-only"): Resource {
  const parameter: Record<string, unknown>[] = [
    { name: "subscription", valueReference: { reference: `${input.baseUrl}/Subscription/${input.subscriptionId}` } },
    ...(input.topic ? [{ name: "topic", valueCanonical: input.topic }] : []),
    { name: "status", valueCode: input.status },
    { name: "type", valueCode: input.type },
    { name: "events-since-subscription-start", valueString: String(input.eventsSinceStart) },
    ...input.events.map((e) => ({
      name: "notification-event",
      part: [
        { name: "event-number", valueString: String(e.eventNumber) },
        { name: "timestamp", valueInstant: e.timestamp },
        ...(content !== "empty" ? [{ name: "focus", valueReference: { reference: `${input.baseUrl}/${e.focus.type}/${e.focus.id}` } }] : []),
      ],
    })),
    ...(input.error ? [{ name: "error", valueCodeableConcept: { text: input.error } }] : []),
  ];
  return { resourceType: "Parameters", id: crypto.randomUUID(), meta: { profile: [IG.statusProfile] }, parameter };
}

const METHOD = { create: "POST", update: "PUT", delete: "DELETE" } as const;
const STATUS = { create: "201", update: "200", delete: "204" } as const;

export function notificationBundle(input: NotificationInput): Bundle {
  const status = subscriptionStatus(input, input.content);
  const entries: BundleEntry[] = [
    {
      fullUrl: `urn:uuid:${status.id}`,
      resource: status,
      request: { method: "GET", url: `${input.baseUrl}/Subscription/${input.subscriptionId}/$status` },
      response: { status: "200" },
    },
  ];
  if (input.content !== "empty") {
    for (const e of input.events) {
      const url = `${input.baseUrl}/${e.focus.type}/${e.focus.id}`;
      const withResource = input.content === "full-resource" && e.action !== "delete" && e.resource;
      entries.push({
        fullUrl: url,
        ...(withResource ? { resource: e.resource } : {}),
        request: { method: METHOD[e.action], url: e.action === "create" ? e.focus.type : `${e.focus.type}/${e.focus.id}` },
        response: { status: STATUS[e.action], ...(e.action !== "delete" ? { etag: `W/"${e.focus.version}"` } : {}) },
      });
    }
  }
  return { resourceType: "Bundle", id: crypto.randomUUID(), type: "history", timestamp: new Date().toISOString(), entry: entries };
}
