// Turns a console session cookie into the same Principal its API key would give, so every route
// applies the same role checks whichever credential the request carried.
import { forbidden, unauthorized } from "../../../platform/errors";
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
  assertLive(entry.session, entry.key.revokedAt, lifetimes, now);
  const orgId = entry.session.orgId;
  const refuse = (message: string) => new RefusedForOrg(forbidden(message), orgId, entry.orgLimits);
  const named = creds.organizationId?.trim();
  if (named && named !== orgId) throw refuse("The console session does not belong to the organization in X-Organization-ID");
  if (creds.pathOrganizationId !== undefined && creds.pathOrganizationId !== orgId) {
    throw refuse("The organization in the URL does not match the console session's");
  }
  return { idHash, entry, principal: { orgId, keyId: entry.key.id, keyName: entry.key.name, role: entry.key.role, scopes: entry.key.scopes } };
}
