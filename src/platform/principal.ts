// Who a request or a job acts as: an organization, a credential (an API key, a user's console
// session, an OAuth client's access token, or a service such as a device platform's webhooks) and
// its role and scopes. Every floor names it (stores audit it, Durable Objects carry it), so it is
// plain vocabulary here; what each role may do is tenancy's (features/tenancy/auth/permissions.ts).

export const ROLES = ["admin", "clinician", "service", "integration_engineer", "auditor"] as const;
export type Role = (typeof ROLES)[number];

/** The person a request acts for, when one does (a signed-in user, a user-authorized app, a user's key). */
export interface PrincipalUser {
  id: string;
  /** The login (email) the user signs in with: an AuditEvent's `agent.altId`. */
  login: string;
  name?: string;
  /** The FHIR resource the user is (`Practitioner/123`, `Patient/p1`): SMART's `fhirUser`. */
  fhirUser?: string;
}

/** The registered OAuth client (SMART app or backend service) an access token was issued to. */
export interface PrincipalClient {
  id: string;
  name: string;
}

/**
 * What FHIR data the credential may touch beyond its role's permissions: the SMART scopes an
 * access token (or a key) was granted, and the launch context `patient/` scopes are bound to.
 * Absent: the role alone decides, as for the API keys that carry none.
 */
export interface FhirGrant {
  /** SMART scopes, v1 (`patient/Observation.read`) or v2 (`patient/Observation.rs?category=...`). */
  scopes: string[];
  /** The launch patient's id: `patient/` scopes reach only this patient's compartment. */
  patient?: string;
  encounter?: string;
}

export interface Principal {
  orgId: string;
  /** The credential's id: the API key's, the session's user's, the access token's client's. */
  keyId: string;
  keyName: string;
  role: Role;
  scopes: string[];
  user?: PrincipalUser;
  client?: PrincipalClient;
  fhirGrant?: FhirGrant;
  /**
   * The access policy (by id) that narrows what this credential may read and write: the API key's,
   * the user's or the client application's (its token's) assignment. Every store the composition
   * root builds for the principal enforces it (features/access-policies; docs/fhir-store.md).
   */
  accessPolicyId?: string;
}

/** Whom per-user limits count for: the user when there is one, else the credential. */
export function actorId(p: Principal): string {
  return p.user ? `user:${p.user.id}` : p.keyId;
}
