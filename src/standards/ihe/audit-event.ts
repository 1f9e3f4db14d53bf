// The AuditEvent shape the IHE audit profiles share (ITI TF-2 Appendix Z / BALP): the event type
// (DICOM), the transaction as subtype (urn:ihe:event-type-code), the client as Source Role ID and
// this server as Destination Role ID (also the audit source: the profiles' val-audit-source), and
// the transaction's entities. MHD (mhd/audit.ts) and PDQm (pdqm/audit.ts) fill in the rest.
import { MAX_AUDIT_QUERY_CHARS } from "../../features/fhir";
import type { AuditedInteraction } from "../../features/fhir";
import { clip } from "../../platform/db/size";
import type { Resource } from "../../platform/fhir-resource";

const DCM = "http://dicom.nema.org/resources/ontology/DCM";
const ENTITY_TYPE = "http://terminology.hl7.org/CodeSystem/audit-entity-type";
const OBJECT_ROLE = "http://terminology.hl7.org/CodeSystem/object-role";

export const EVENT_TYPES = {
  import: { system: DCM, code: "110107", display: "Import" },
  export: { system: DCM, code: "110106", display: "Export" },
  query: { system: DCM, code: "110112", display: "Query" },
  /** What BALP-based profiles (PDQm 3.2 ITI-119) and the FHIR operation audit use. */
  rest: { system: "http://terminology.hl7.org/CodeSystem/audit-event-type", code: "rest", display: "RESTful Operation" },
} as const;

export interface IheAudit {
  /** The IHE AuditEvent profile the event claims (none for an operation no profile covers). */
  profile?: string;
  type: (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];
  action: "C" | "R" | "E";
  /** e.g. ["ITI-65", "Provide Document Bundle"]; absent for an operation no IHE transaction covers. */
  transaction?: readonly [string, string];
  /** The FHIR RESTful interaction as a further subtype (BALP: search for ITI-119, operation for $summary). */
  interaction?: "search" | "operation";
  entity: Record<string, unknown>[];
}

/** A patient entity (Person / Patient) for a reference or an identifier. */
export function patientEntity(what: { reference: string } | { identifier: { system?: string; value?: string } }): Record<string, unknown> {
  return { what, type: { system: ENTITY_TYPE, code: "1", display: "Person" }, role: { system: OBJECT_ROLE, code: "1", display: "Patient" } };
}

/** A system-object entity in `role` (20 Job: a SubmissionSet; 3 Report: a document). */
export function objectEntity(what: Record<string, unknown>, role: { code: string; display: string }): Record<string, unknown> {
  return { what, type: { system: ENTITY_TYPE, code: "2", display: "System Object" }, role: { system: OBJECT_ROLE, ...role } };
}

/** The query-parameters entity (System Object / Query): the query base64-encoded, and readable in description; `name` names an operation. */
export function queryEntity(fullQuery: string, name?: string): Record<string, unknown> {
  // Shortened as the store's own audit shortens it: a POST _search body can be megabytes.
  const query = clip(fullQuery, MAX_AUDIT_QUERY_CHARS);
  let binary = "";
  for (const byte of new TextEncoder().encode(query)) binary += String.fromCharCode(byte);
  return { type: { system: ENTITY_TYPE, code: "2", display: "System Object" }, role: { system: OBJECT_ROLE, code: "24", display: "Query" }, query: btoa(binary), description: query, ...(name ? { name } : {}) };
}

export function iheAuditEvent(audit: IheAudit, on: AuditedInteraction): Resource {
  const server = { identifier: { system: "urn:ietf:rfc:3986", value: on.baseUrl }, display: "cdis-fhir-store" };
  const host = new URL(on.baseUrl, "http://localhost").hostname;
  return {
    resourceType: "AuditEvent",
    ...(audit.profile ? { meta: { profile: [audit.profile] } } : {}),
    type: audit.type,
    subtype: [
      ...(audit.transaction ? [{ system: "urn:ihe:event-type-code", code: audit.transaction[0], display: audit.transaction[1] }] : []),
      ...(audit.interaction ? [{ system: "http://hl7.org/fhir/restful-interaction", code: audit.interaction }] : []),
    ],
    action: audit.action,
    recorded: new Date().toISOString(),
    outcome: on.outcome,
    ...(on.outcomeDesc ? { outcomeDesc: on.outcomeDesc } : {}),
    agent: [
      {
        type: { coding: [{ system: DCM, code: "110153", display: "Source Role ID" }] },
        who: { identifier: { system: "urn:cdis:api-key", value: on.principal.keyId }, display: on.principal.keyName },
        role: [{ coding: [{ system: "urn:cdis:role", code: on.principal.role }] }],
        requestor: true,
        // The client's address when the platform reports it (Cloudflare: CF-Connecting-IP).
        ...(on.clientAddress ? { network: { address: on.clientAddress, type: "2" } } : {}),
      },
      {
        type: { coding: [{ system: DCM, code: "110152", display: "Destination Role ID" }] },
        who: server,
        requestor: false,
        network: { address: host, type: "1" },
      },
    ],
    source: { site: on.principal.orgId, observer: server, type: [{ system: "http://terminology.hl7.org/CodeSystem/security-source-type", code: "4", display: "Application Server" }] },
    entity: audit.entity,
  };
}
