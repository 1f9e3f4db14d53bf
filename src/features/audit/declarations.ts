// The audit declarations routes carry where they are defined (platform/http/route-audit.ts): each
// route that changes state says which of these holds for it. The middleware (middleware.ts)
// records `audited` routes; the others say who records them instead, or why nothing needs to.
import type { RouteAudit } from "../../platform/http/route-audit";
import type { ManagementAction } from "./actions";

/**
 * Where the acted-on entity's id is: a path parameter (by name), a string field of the 2xx JSON
 * answer (a create's new id), the last segment of the answer's Content-Location (an export's
 * job), or the organization itself (its settings).
 */
export type EntityFrom = { param: string } | { response: string } | { contentLocation: true } | { organization: true };

export type AuditDeclaration =
  /** The management audit records `action` once the route has answered. */
  | { kind: "audited"; action: ManagementAction; entity?: EntityFrom }
  /** The route's use case records `action` itself (it knows what the HTTP exchange does not: the operator, before and after). */
  | { kind: "audited-inside"; action: ManagementAction }
  /** A FHIR interaction: the FHIR store records its AuditEvent (docs/audit.md). */
  | { kind: "fhir" }
  /** Not a management action, and why. */
  | { kind: "not-audited"; why: string };

export const audited = (action: ManagementAction, entity?: EntityFrom): AuditDeclaration => ({ kind: "audited", action, ...(entity ? { entity } : {}) });
export const auditedInside = (action: ManagementAction): AuditDeclaration => ({ kind: "audited-inside", action });
export const AUDITED_BY_FHIR_STORE: AuditDeclaration = { kind: "fhir" };
export const notAudited = (why: string): AuditDeclaration => ({ kind: "not-audited", why });

/** The entity locators the routes use most. */
export const byId = { param: "id" } as const;
export const newId = { response: "id" } as const;
export const theOrganization = { organization: true } as const;

/** A declaration as the platform carries it back; every RouteAudit in this app is one of these. */
export const declarationOf = (audit: RouteAudit): AuditDeclaration => audit as AuditDeclaration;
