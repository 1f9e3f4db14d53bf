// Turns a console session cookie into the same Principal its API key would give, so every route
// applies the same role checks whichever credential the request carried; a user's session gives
// the user's principal (their role, `user` set), and stops the moment the user is disabled.
import { forbidden, unauthorized } from "../../../platform/errors";
import { userPrincipal } from "../../identity";
import { hashApiKey } from "../auth/api-key-crypto";
import type { Principal } from "../auth/permissions";
import { RefusedForOrg } from "../auth/authenticate";
import { SESSION_ID_PATTERN, type SessionWithKey } from "./session-store";
import { type SessionLifetimes, assertLive } from "./session-policy";

export interface SessionCredentials {
  sessionId: string;
  /** X-Organization-ID, optional with a session; when sent it must name the session's org. */
  organizationId: string | undefined;
  pathOrganizationId?: string | undefined;
}

export interface AuthenticatedSession {
  principal: Principal;
  idHash: string;
  entry: SessionWithKey;
}

export async function authenticateSession(
  creds: SessionCredentials,
  lookup: (idHash: string) => Promise<SessionWithKey | undefined>,
  lifetimes: SessionLifetimes,
  now: number,
): Promise<AuthenticatedSession> {
  if (!SESSION_ID_PATTERN.test(creds.sessionId)) throw unauthorized("Invalid console session: sign in again");
  const idHash = await hashApiKey(creds.sessionId);
  const entry = await lookup(idHash);
  if (!entry) throw unauthorized("Invalid console session: sign in again");
  assertLive(entry.session, entry.key?.revokedAt ?? null, lifetimes, now);
  if (entry.user && entry.user.status !== "active") throw unauthorized("The user is disabled: the console session has ended");
  const orgId = entry.session.orgId;
  const refuse = (message: string) => new RefusedForOrg(forbidden(message), orgId, entry.orgLimits);
  const named = creds.organizationId?.trim();
  if (named && named !== orgId) throw refuse("The console session does not belong to the organization in X-Organization-ID");
  if (creds.pathOrganizationId !== undefined && creds.pathOrganizationId !== orgId) {
    throw refuse("The organization in the URL does not match the console session's");
  }
  return { idHash, entry, principal: principalOf(entry, orgId) };
}

function principalOf({ key, user }: SessionWithKey, orgId: string): Principal {
  if (key) return { orgId, keyId: key.id, keyName: key.name, role: key.role, scopes: key.scopes, ...(key.accessPolicyId ? { accessPolicyId: key.accessPolicyId } : {}) };
  if (!user) throw unauthorized("Invalid console session: sign in again");
  return userPrincipal(user);
}
