// Turns request credentials into a Principal, or throws the right 400/401/403.
// Pure apart from the key lookup it is given, so it is testable without HTTP.
import { ApiError, forbidden, unauthorized } from "../../../platform/errors";
import { userPrincipal } from "../../identity";
import type { KeyWithOrg } from "../api-keys";
import { hashApiKey, isWellFormedApiKey } from "./api-key-crypto";
import type { Principal } from "./permissions";

export interface Credentials {
  authorization: string | undefined;
  organizationId: string | undefined;
  /** The organization named in the URL, for routes that carry one (FHIR). */
  pathOrganizationId?: string | undefined;
}

export type KeyLookup = (keyHash: string) => Promise<KeyWithOrg | undefined>;

export interface Authenticated {
  principal: Principal;
  keyHash: string;
  entry: KeyWithOrg;
}

/**
 * A refusal of a valid credential (a live key or session) for the organization the request
 * names: the credential's own organization is known, so the request counts in that
 * organization's rate bucket rather than the client IP's (middleware/auth.ts).
 */
export class RefusedForOrg extends ApiError {
  constructor(
    refusal: ApiError,
    readonly orgId: string,
    readonly orgLimits: unknown,
  ) {
    super(refusal.status, refusal.code, refusal.message, refusal.details, refusal.headers);
  }
}

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

export async function authenticate(creds: Credentials, lookup: KeyLookup): Promise<Authenticated> {
  if (!creds.authorization) {
    throw unauthorized('Missing Authorization header: expected "Bearer <API key>"');
  }
  const match = BEARER.exec(creds.authorization);
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected "Bearer <API key>"');
  const secret = match[1];
  if (!isWellFormedApiKey(secret)) throw unauthorized("Invalid API key");

  const keyHash = await hashApiKey(secret);
  const entry = await lookup(keyHash);
  if (!entry) throw unauthorized("Invalid API key");
  if (entry.key.revokedAt) throw unauthorized("API key has been revoked");

  const refuse = (refusal: ApiError) => new RefusedForOrg(refusal, entry.key.orgId, entry.orgLimits);
  const orgId = creds.organizationId?.trim();
  if (!orgId) {
    throw refuse(new ApiError(400, "ORGANIZATION_REQUIRED", "The X-Organization-ID header is required"));
  }
  if (orgId !== entry.key.orgId) {
    throw refuse(forbidden("The API key does not belong to the organization in X-Organization-ID"));
  }
  if (creds.pathOrganizationId !== undefined && creds.pathOrganizationId !== orgId) {
    throw refuse(forbidden("The organization in the URL does not match X-Organization-ID"));
  }
  return { keyHash, entry, principal: keyPrincipal(entry, orgId) };
}

/**
 * The organization's key acts with its own role; a personal key acts as its user (their current
 * role and access policy, AuditEvents naming them), narrowed by its own scopes and access policy,
 * and stops with them: a disabled or deleted owner is a 401.
 */
function keyPrincipal({ key, owner }: KeyWithOrg, orgId: string): Principal {
  const policy = (id: string | null) => (id ? { accessPolicyId: id } : {});
  if (!key.ownerUserId) return { orgId, keyId: key.id, keyName: key.name, role: key.role, scopes: key.scopes, ...policy(key.accessPolicyId) };
  if (owner?.status !== "active") throw unauthorized("The API key's owner is disabled or no longer exists");
  return { ...userPrincipal(owner), keyId: key.id, keyName: key.name, scopes: key.scopes, ...policy(key.accessPolicyId ?? owner.accessPolicyId) };
}
