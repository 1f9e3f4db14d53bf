// Builds the AuditEvent (FHIR R4, DICOM/IHE style) recorded for every FHIR interaction:
// who (the API key and its role), what (the resource or the query) and the outcome.
import type { Principal } from "../../platform/principal";
import { principalAgents } from "../../platform/audit-agents";
import { clip } from "../../platform/db/size";
import type { Resource } from "./port";
import { newResourceId } from "./resource-id";

export type Interaction =
  | "read"
  | "vread"
  | "search-type"
  | "search-system"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "history-instance"
  | "history-type"
  | "history-system"
  | "batch"
  | "transaction"
  | "operation";

const ACTION: Record<Interaction, string> = {
  read: "R",
  vread: "R",
  "search-type": "E",
  "search-system": "E",
  create: "C",
  update: "U",
  patch: "U",
  delete: "D",
  "history-instance": "R",
  "history-type": "R",
  "history-system": "R",
  batch: "E",
  transaction: "E",
  operation: "E",
};

export interface AuditInput {
  interaction: Interaction;
  /** "Type/id" or "Type/id/_history/v" of the resource acted on. */
  what?: string;
  /** The query string of a search or history, or an operation name. */
  query?: string;
  /** 0 success, 4 minor failure (client error), 8 serious failure. */
  outcome: "0" | "4" | "8";
  outcomeDesc?: string;
  /** The access policy's basis (Consents that withheld or were overridden) and the declared purposes of use. */
  policy?: { basis: string[]; purposes: string[] };
}

/** Characters of a query an AuditEvent keeps (about a long URL): a POST _search body can be megabytes. */
export const MAX_AUDIT_QUERY_CHARS = 16 * 1024;

function b64(s: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(s)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * An AuditEvent as the store keeps it: a new id, version 1, stored at `now`, and `source.site`
 * naming the organization it belongs to (the audit queue stores an event only for the org it
 * names). The event's own meta (an IHE audit profile's meta.profile) stays. Every writer of the
 * trail goes through this: the store, and the admin CLI, which appends to the pending log directly.
 */
export function asStoredAudit(event: Resource, orgId: string, now: string): Resource & { id: string } {
  const source = { ...(event.source as Record<string, unknown> | undefined), site: orgId };
  return { ...event, source, id: newResourceId(), meta: { ...event.meta, versionId: "1", lastUpdated: now } };
}

export function auditEvent(principal: Principal, input: AuditInput, recorded: string): Resource {
  const entity: Record<string, unknown>[] = [];
  if (input.what) entity.push({ what: { reference: input.what }, type: { system: "http://terminology.hl7.org/CodeSystem/audit-entity-type", code: "2" } });
  // Consents that decided: DICOM object role 13 "Security Resource".
  for (const ref of input.policy?.basis ?? []) {
    entity.push({ what: { reference: ref }, type: { system: "http://terminology.hl7.org/CodeSystem/audit-entity-type", code: "2" }, role: { system: "http://terminology.hl7.org/CodeSystem/object-role", code: "13" } });
  }
  if (input.query !== undefined) {
    const query = clip(input.query, MAX_AUDIT_QUERY_CHARS);
    entity.push({ query: b64(query), description: query });
  }
  return {
    resourceType: "AuditEvent",
    type: { system: "http://terminology.hl7.org/CodeSystem/audit-event-type", code: "rest", display: "RESTful Operation" },
    subtype: [{ system: "http://hl7.org/fhir/restful-interaction", code: input.interaction }],
    action: ACTION[input.interaction],
    recorded,
    outcome: input.outcome,
    ...(input.outcomeDesc ? { outcomeDesc: input.outcomeDesc } : {}),
    ...(input.policy?.purposes.length ? { purposeOfEvent: input.policy.purposes.map((code) => ({ coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ActReason", code }] })) } : {}),
    agent: principalAgents(principal, false),
    source: { site: principal.orgId, observer: { display: "cdis-fhir-store" } },
    ...(entity.length ? { entity } : {}),
  };
}
