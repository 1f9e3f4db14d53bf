// Builds the FHIR R4 AuditEvent of one management action: who (the person, when a user acted, and
// the API key's id and role, never the key), what (type and subtypes, action), the entity (its kind
// and id), the outcome (0 success, 4 refused, 8 failed, with the reason), the source (the org's
// service) and when.
import type { Principal } from "../../platform/principal";
import { principalAgents } from "../../platform/audit-agents";
import { ACTION_SYSTEM, ENTITY_TYPE_SYSTEM, MANAGEMENT_ACTIONS, type ManagementAction } from "./actions";

export interface ManagementActionInput {
  action: ManagementAction;
  /** The id of what was acted on, when there is one (a failed create has none). */
  entityId?: string;
  /** "0" success, "4" refused (4xx), "8" failed (5xx). */
  outcome: "0" | "4" | "8";
  /** Why it failed (the error message); never a request body. */
  reason?: string;
  /** Short non-secret facts about the action (e.g. the HTTP method and path). */
  detail?: Record<string, string>;
}

const MAX_REASON_CHARS = 500;

/** The AuditEvent as FHIR JSON (the store's Resource shape; this builder is pure, so the admin CLI runs it too). */
export interface AuditEventResource {
  resourceType: "AuditEvent";
  id?: string;
  [key: string]: unknown;
}

export function managementAuditEvent(principal: Principal, input: ManagementActionInput, recorded = new Date().toISOString()): AuditEventResource {
  const def = MANAGEMENT_ACTIONS[input.action];
  const entity = {
    type: { system: ENTITY_TYPE_SYSTEM, code: def.entity, display: def.entity },
    role: { system: "http://terminology.hl7.org/CodeSystem/object-role", code: "4", display: "Domain Resource" },
    ...(input.entityId ? { what: { identifier: { system: `urn:cdis:${def.entity}`, value: input.entityId } }, name: `${def.entity}/${input.entityId}` } : { name: def.entity }),
    ...(input.detail ? { detail: Object.entries(input.detail).map(([type, valueString]) => ({ type, valueString })) } : {}),
  };
  return {
    resourceType: "AuditEvent",
    type: def.type,
    subtype: [def.subtype, { system: ACTION_SYSTEM, code: input.action, display: input.action }],
    action: def.action,
    recorded,
    outcome: input.outcome,
    ...(input.reason ? { outcomeDesc: input.reason.slice(0, MAX_REASON_CHARS) } : {}),
    agent: principalAgents(principal, true),
    source: {
      site: principal.orgId,
      observer: { display: "cdis-management-api" },
      type: [{ system: "http://terminology.hl7.org/CodeSystem/security-source-type", code: "4", display: "Application Server" }],
    },
    entity: [entity],
  };
}
