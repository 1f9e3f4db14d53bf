// The resource owner at the authorization endpoint: the person signed in to the console (its
// session cookie), who must be a user (not an API key's session) of the org whose FHIR endpoint
// the app asks for. Read uncached, as the console's own requests are.
import type { Database } from "../../../platform/db/client";
import type { UserRow } from "../../identity";
import { ConsoleSessionStore, hashSessionId, SESSION_ID_PATTERN, sessionEndsAt, sessionLifetimes } from "../../tenancy";

export type ConsoleUser =
  | { kind: "none" }
  | { kind: "not-a-user" }
  | { kind: "other-org"; orgName: string }
  | { kind: "user"; user: UserRow; sessionHash: string; orgName: string };

export async function consoleUserOf(control: Database, env: object, sessionId: string | undefined, orgId: string, now = Date.now()): Promise<ConsoleUser> {
  if (!sessionId || !SESSION_ID_PATTERN.test(sessionId)) return { kind: "none" };
  const sessionHash = await hashSessionId(sessionId);
  const entry = await new ConsoleSessionStore(control).findByHash(sessionHash);
  if (!entry) return { kind: "none" };
  const { session, user, key } = entry;
  if (session.revokedAt || key?.revokedAt || now >= sessionEndsAt(session, sessionLifetimes(env))) return { kind: "none" };
  if (session.orgId !== orgId) return { kind: "other-org", orgName: entry.orgName };
  if (!user) return { kind: "not-a-user" };
  if (user.status !== "active") return { kind: "none" };
  return { kind: "user", user, sessionHash, orgName: entry.orgName };
}
