// The console session as its API shows it (who am I): the org, role, permissions, the key or user
// it is bound to, and when it ends.
import type { Env } from "../../../platform/env";
import { type Principal, permissionsOf } from "../auth/permissions";
import type { ConsoleSessionView } from "./schemas";
import { sessionEndsAt, sessionLifetimes } from "./session-policy";
import type { SessionWithKey } from "./session-store";

export function presentSession(principal: Principal, { session, key, user, orgName }: SessionWithKey, env: Env): ConsoleSessionView {
  const lifetimes = sessionLifetimes(env);
  return {
    organization: { id: session.orgId, name: orgName },
    role: principal.role,
    scopes: principal.scopes,
    permissions: permissionsOf(principal),
    ...(key ? { key: { id: key.id, name: key.name, key_prefix: key.keyPrefix } } : {}),
    ...(user ? { user: { id: user.id, email: user.email, name: user.name, ...(user.fhirUser ? { fhir_user: user.fhirUser } : {}) } } : {}),
    created_at: session.createdAt,
    expires_at: new Date(sessionEndsAt(session, lifetimes)).toISOString(),
    absolute_expires_at: session.expiresAt,
    idle_timeout_seconds: lifetimes.idleSeconds,
  };
}
