// Console sign-in, who-am-I and sign-out. Sign-in checks the key exactly as a Bearer request
// would, then opens a session for it; the key itself is never returned or kept. Each sign-in of a
// valid key, refused or not, leaves an AuditEvent (console_session.sign_in) in its organization's
// trail; an unknown key names no organization whose trail it could go to.
import { forbidden, notFound } from "../../../platform/errors";
import type { Env } from "../../../platform/env";
import type { OrgContexts } from "../../../platform/org-context";
import { type OrgData, controlStore } from "../../../platform/org-data";
import { recordManagementAction } from "../../audit";
import { ApiKeyStore } from "../api-keys";
import { authenticate } from "../auth/authenticate";
import type { Principal } from "../auth/permissions";
import { ConsoleSessionStore, type SessionWithKey } from "../sessions/session-store";
import { sessionLifetimes } from "../sessions/session-policy";
import { presentSession } from "../sessions/present-session";
import type { ConsoleSessionView } from "../sessions/schemas";

/** Roles that may sign in to the console; service keys are for systems. */
const CONSOLE_ROLES = new Set(["admin", "clinician", "integration_engineer", "auditor"]);

export interface SignedIn {
  sessionId: string;
  maxAgeSeconds: number;
  view: ConsoleSessionView;
}

export async function signIn(env: Env, contexts: OrgContexts, input: { organization_id: string; api_key: string }, now = Date.now()): Promise<SignedIn> {
  const control = controlStore(env);
  const keys = new ApiKeyStore(control);
  const { principal, entry } = await authenticate({ authorization: `Bearer ${input.api_key}`, organizationId: input.organization_id }, (hash) => keys.findByHash(hash));
  const trail = await contexts.forOrg(principal.orgId);
  // A personal key is its person's tool for scripts; the person signs in to the console as themselves (password, SSO, second factor).
  const refusal = entry.key.ownerUserId
    ? forbidden("A personal API key cannot open a console session: sign in with your email and password")
    : !CONSOLE_ROLES.has(principal.role)
      ? forbidden("Service keys are for systems: sign in to the console with an administrator's or clinician's key")
      : undefined;
  if (refusal) {
    await recordManagementAction(trail, principal, { action: "console_session.sign_in", outcome: "4", reason: `${refusal.code}: ${refusal.message}` });
    throw refusal;
  }
  const lifetimes = sessionLifetimes(env);
  const sessions = new ConsoleSessionStore(control);
  const { id, row } = await sessions.create(principal.orgId, { keyId: principal.keyId }, now, lifetimes.maxSeconds);
  // Signing in is a use of the key (the session's requests then record theirs, middleware/auth.ts).
  await keys.touch(principal.keyId, new Date(now).toISOString());
  const found = await sessions.findByHash(row.idHash);
  if (!found) throw new Error("the session just created was not found");
  await recordManagementAction(trail, principal, { action: "console_session.sign_in", outcome: "0" });
  return { sessionId: id, maxAgeSeconds: lifetimes.maxSeconds, view: presentSession(principal, found, env) };
}

/** The session authenticating this request, as the console shows it; 404 when a Bearer key did. */
export function currentSession(data: OrgData, principal: Principal, session: SessionWithKey | undefined): ConsoleSessionView {
  if (!session) throw notFound("No console session: this request was authenticated with an API key", "NO_CONSOLE_SESSION");
  return presentSession(principal, session, data.env);
}

export async function signOut(data: OrgData, idHash: string | undefined): Promise<void> {
  if (!idHash) throw notFound("No console session: this request was authenticated with an API key", "NO_CONSOLE_SESSION");
  await new ConsoleSessionStore(data.control).revoke(idHash, new Date().toISOString());
}
