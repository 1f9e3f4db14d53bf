// FHIR Subscriptions as the Subscriptions pages show them: the R4 resource (criteria or a Backport
// IG topic, its channel and payload, status and error), the SubscriptionStatus of $status and the
// events of $events (docs/subscriptions.md), read for display only; the service validates them.
const SD = "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition";
const TOPIC_BASE = "https://cdis.dev/fhir/SubscriptionTopic/";

interface Extension {
  url?: string;
  valueString?: string;
  valueCode?: string;
  valueCoding?: { code?: string };
  valueUnsignedInt?: number;
}

export interface Subscription {
  resourceType: "Subscription";
  id: string;
  meta?: { lastUpdated?: string };
  status?: "requested" | "active" | "error" | "off";
  reason?: string;
  criteria?: string;
  _criteria?: { extension?: Extension[] };
  error?: string;
  end?: string;
  channel?: { type?: string; _type?: { extension?: Extension[] }; endpoint?: string; payload?: string; _payload?: { extension?: Extension[] }; header?: string[]; extension?: Extension[] };
}

const ext = (element: { extension?: Extension[] } | undefined, name: string) => element?.extension?.find((e) => e.url === `${SD}/${name}`);

export const channelType = (s: Subscription) => ext(s.channel?._type, "backport-channel-type")?.valueCoding?.code ?? s.channel?.type ?? "—";

/** The topic's short name for a topic subscription (resource-created…), else undefined. */
export const topicName = (s: Subscription) => (s.criteria?.startsWith(TOPIC_BASE) ? s.criteria.slice(TOPIC_BASE.length) : undefined);

/** The backport-filter-criteria of a topic subscription. */
export const filters = (s: Subscription) => (s._criteria?.extension ?? []).filter((e) => e.url === `${SD}/backport-filter-criteria`).map((e) => e.valueString ?? "");

/** What each notification carries, as the service decides it (subscription.ts). */
export function payloadContent(s: Subscription): string {
  return ext(s.channel?._payload, "backport-payload-content")?.valueCode ?? (s.channel?.payload ? "full-resource" : "empty");
}

export const heartbeatSeconds = (s: Subscription) => ext(s.channel, "backport-heartbeat-period")?.valueUnsignedInt;

/** Only the names of channel.header lines: their values are often credentials. */
export const headerNames = (s: Subscription) => (s.channel?.header ?? []).map((h) => h.slice(0, Math.max(0, h.indexOf(":"))).trim() || h);

interface Parameter {
  name: string;
  valueString?: string;
  valueInstant?: string;
  valueCode?: string;
  valueReference?: { reference?: string };
  valueCodeableConcept?: { text?: string };
  part?: Parameter[];
}

export interface NotificationBundle {
  resourceType: "Bundle";
  entry?: { fullUrl?: string; resource?: { resourceType: string; parameter?: Parameter[] }; request?: { method?: string; url?: string } }[];
}

export interface SubscriptionEvent {
  number: number;
  timestamp: string;
  /** Type/id of the changed resource (id-only and full-resource content). */
  focus?: string;
  action?: "create" | "update" | "delete";
}

const ACTIONS: Record<string, SubscriptionEvent["action"]> = { POST: "create", PUT: "update", DELETE: "delete" };

/** The SubscriptionStatus of a $status or $events Bundle: the event count, status, error and events (in the Bundle's order). */
export function readStatus(bundle: NotificationBundle): { eventsSinceStart: number; status?: string; error?: string; events: SubscriptionEvent[] } {
  const [head, ...rest] = bundle.entry ?? [];
  const params = head?.resource?.parameter ?? [];
  const value = (name: string) => params.find((p) => p.name === name);
  const events = params
    .filter((p) => p.name === "notification-event")
    .map((p, i): SubscriptionEvent => {
      const part = (name: string) => p.part?.find((q) => q.name === name);
      const reference = part("focus")?.valueReference?.reference;
      const action = ACTIONS[rest[i]?.request?.method ?? ""];
      return {
        number: Number(part("event-number")?.valueString ?? 0),
        timestamp: part("timestamp")?.valueInstant ?? "",
        ...(reference ? { focus: reference.split("/").slice(-2).join("/") } : {}),
        ...(action ? { action } : {}),
      };
    });
  const status = value("status")?.valueCode;
  const error = value("error")?.valueCodeableConcept?.text;
  return { eventsSinceStart: Number(value("events-since-subscription-start")?.valueString ?? 0), ...(status ? { status } : {}), ...(error ? { error } : {}), events };
}
