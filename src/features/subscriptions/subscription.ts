// A Subscription resource read into what delivery needs (SubscriptionSpec), or the reasons it
// cannot be served (a 422 on write, subscription-check.ts). Two kinds: R4's, whose `criteria` is
// a FHIR search on the changed resource; the Backport IG's, whose `criteria` is one of the
// service's topic canonicals (topics.ts) narrowed by `backport-filter-criteria` searches.
import { type Criteria, parseCriteria, type Resource } from "../fhir";
import { IG, type PayloadContent, extensionsOf } from "./ig";
import { type Topic, topicOf } from "./topics";

export type ChannelType = "rest-hook" | "websocket";
export type SubscriptionStatus = "requested" | "active" | "error" | "off";

export interface SubscriptionSpec {
  id: string;
  status: SubscriptionStatus;
  /** "topic": the Backport IG's; "criteria": R4's. */
  kind: "criteria" | "topic";
  /** R4: the search the changed resource must match. Topic: the topic and its filters (each must match). */
  criteria?: Criteria;
  topic?: Topic;
  filters: Criteria[];
  channel: ChannelType;
  endpoint?: string;
  /** `channel.header` lines, as headers. */
  headers: Record<string, string>;
  /** R4's `channel.payload` MIME type (absent: an empty notification). */
  mimeType?: string;
  payload: PayloadContent;
  /** R4's empty notification: a criteria subscription with neither channel.payload nor backport-payload-content gets a POST with no body (rest-hook) or `ping <id>` (websocket). */
  emptyPost: boolean;
  /** Seconds between heartbeats (topic subscriptions' backport-heartbeat-period). */
  heartbeatSeconds?: number;
  /** Most events in one notification (backport-max-count). */
  maxCount?: number;
  /** Per-attempt timeout (backport-timeout, seconds). */
  timeoutSeconds?: number;
  end?: string;
}

interface SubscriptionResource extends Resource {
  id?: string;
  status?: string;
  criteria?: string;
  _criteria?: unknown;
  end?: string;
  channel?: { type?: string; _type?: unknown; endpoint?: string; payload?: string; _payload?: unknown; header?: string[]; extension?: unknown[] };
}

const PAYLOADS: readonly PayloadContent[] = ["empty", "id-only", "full-resource"];

export type Parsed = { ok: true; spec: SubscriptionSpec } | { ok: false; issues: string[] };

const firstValue = (element: unknown, url: string, key: string) => extensionsOf(element, url)[0]?.[key];

/** `id`: the stored id (a create's body has none yet). */
export function parseSubscription(resource: Resource, id = (resource as SubscriptionResource).id ?? ""): Parsed {
  const sub = resource as SubscriptionResource;
  const issues: string[] = [];
  const status = (sub.status ?? "requested") as SubscriptionStatus;
  if (!["requested", "active", "error", "off"].includes(status)) issues.push(`Subscription.status ${sub.status} is not a status`);
  const channel = sub.channel ?? {};
  const channelType = (firstValue(channel._type, IG.channelType, "valueCoding") as { code?: string } | undefined)?.code ?? channel.type;
  if (channelType !== "rest-hook" && channelType !== "websocket") issues.push(`Subscription.channel.type ${channelType ?? "(none)"} is not served: rest-hook or websocket`);
  if (channelType === "rest-hook") {
    if (!channel.endpoint) issues.push("A rest-hook Subscription needs channel.endpoint");
    else if (!/^https?:\/\//.test(channel.endpoint)) issues.push(`Subscription.channel.endpoint ${channel.endpoint} is not an http(s) URL`);
  }
  const headers: Record<string, string> = {};
  for (const line of channel.header ?? []) {
    const at = typeof line === "string" ? line.indexOf(":") : -1;
    if (at <= 0) {
      issues.push(`Subscription.channel.header "${line}" is not "Name: value"`);
      continue;
    }
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  const content = firstValue(channel._payload, IG.payloadContent, "valueCode") as string | undefined;
  if (content !== undefined && !PAYLOADS.includes(content as PayloadContent)) issues.push(`backport-payload-content ${content} is not empty, id-only or full-resource`);
  const mimeType = channel.payload;
  if (mimeType !== undefined && !/^application\/(fhir\+)?json\b/.test(mimeType)) issues.push(`Subscription.channel.payload ${mimeType} is not served: application/fhir+json`);
  // R4: a payload MIME type means the full resource; none, an empty notification. The extension decides when present.
  const payload: PayloadContent = (content as PayloadContent | undefined) ?? (mimeType ? "full-resource" : "empty");
  const heartbeat = firstValue(channel, IG.heartbeatPeriod, "valueUnsignedInt");
  const maxCount = firstValue(channel, IG.maxCount, "valuePositiveInt");
  const timeout = firstValue(channel, IG.timeout, "valueUnsignedInt");
  for (const [name, v] of [["backport-heartbeat-period", heartbeat], ["backport-max-count", maxCount], ["backport-timeout", timeout]] as const) {
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 0)) issues.push(`${name} must be a non-negative integer`);
  }

  const criteriaText = sub.criteria ?? "";
  const topic = topicOf(criteriaText);
  let criteria: Criteria | undefined;
  const filters: Criteria[] = [];
  if (topic) {
    for (const f of extensionsOf(sub._criteria, IG.filterCriteria)) {
      const text = f.valueString;
      if (typeof text !== "string") {
        issues.push("backport-filter-criteria needs valueString");
        continue;
      }
      const parsed = parseCriteria(text, topic.resourceTypes);
      if ("issue" in parsed) issues.push(`backport-filter-criteria ${text}: ${parsed.issue}`);
      else filters.push(parsed);
    }
  } else if (/^[a-z]+:\/\//i.test(criteriaText) || criteriaText.startsWith("urn:")) {
    issues.push(`Subscription.criteria ${criteriaText} is not a topic this server declares (Subscription/$topic-list)`);
  } else {
    const parsed = parseCriteria(criteriaText);
    if ("issue" in parsed) issues.push(`Subscription.criteria ${criteriaText || "(none)"}: ${parsed.issue}`);
    else criteria = parsed;
  }
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    spec: {
      id,
      status,
      kind: topic ? "topic" : "criteria",
      ...(criteria ? { criteria } : {}),
      ...(topic ? { topic } : {}),
      filters,
      channel: channelType as ChannelType,
      ...(channel.endpoint ? { endpoint: channel.endpoint } : {}),
      headers,
      ...(mimeType ? { mimeType } : {}),
      payload,
      emptyPost: !topic && !mimeType && content === undefined,
      ...(typeof heartbeat === "number" && heartbeat > 0 ? { heartbeatSeconds: heartbeat } : {}),
      ...(typeof maxCount === "number" ? { maxCount } : {}),
      ...(typeof timeout === "number" && timeout > 0 ? { timeoutSeconds: timeout } : {}),
      ...(sub.end ? { end: sub.end } : {}),
    },
  };
}
