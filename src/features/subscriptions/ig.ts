// The Subscriptions R5 Backport IG (STU 1.1, hl7.org/fhir/uv/subscriptions-backport) as this
// service reads and writes it on R4: its extension and profile URLs, in one place.
const BACKPORT = "http://hl7.org/fhir/uv/subscriptions-backport";
const SD = `${BACKPORT}/StructureDefinition`;

export const IG = {
  subscriptionProfile: `${SD}/backport-subscription`,
  statusProfile: `${SD}/backport-subscription-status-r4`,
  topicListProfile: `${SD}/backport-subscription-topic-canonical-urls`,
  filterCriteria: `${SD}/backport-filter-criteria`,
  payloadContent: `${SD}/backport-payload-content`,
  heartbeatPeriod: `${SD}/backport-heartbeat-period`,
  timeout: `${SD}/backport-timeout`,
  maxCount: `${SD}/backport-max-count`,
  channelType: `${SD}/backport-channel-type`,
  topicCanonical: `${SD}/capabilitystatement-subscriptiontopic-canonical`,
  serverCapability: `${BACKPORT}/CapabilityStatement/backport-subscription-server-r4`,
  statusOperation: `${BACKPORT}/OperationDefinition/backport-subscription-status`,
  eventsOperation: `${BACKPORT}/OperationDefinition/backport-subscription-events`,
  wsTokenOperation: `${BACKPORT}/OperationDefinition/backport-subscription-get-ws-binding-token`,
} as const;

export type PayloadContent = "empty" | "id-only" | "full-resource";
export type NotificationType = "handshake" | "heartbeat" | "event-notification" | "query-status" | "query-event";

interface Extension {
  url?: string;
  [value: string]: unknown;
}

/** The extensions of an element with `url`. */
export function extensionsOf(element: unknown, url: string): Extension[] {
  const list = (element as { extension?: unknown } | undefined)?.extension;
  return Array.isArray(list) ? (list as Extension[]).filter((e) => e && typeof e === "object" && e.url === url) : [];
}
