// Grants: what a user approved for a client (scopes, launch patient and encounter, their fhirUser).
// A grant is live while it is not revoked, its user is active, its client is active and, for
// online_access, the console session that approved it has not ended. Its refresh tokens and its
// access tokens (which name it, `gid`) live only as long as it: the token endpoint checks at each
// refresh, and the FHIR endpoint checks per request, through a per-isolate cache of LIVE_CACHE_MS
// (a revocation in this isolate drops its entry at once; other isolates see it within that bound).
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type UserRow, users } from "../identity";
import { ConsoleSessionStore, sessionEndsAt, sessionLifetimes } from "../tenancy";
import { type ClientApplicationRow, clientApplications, type GrantRow, smartGrants } from "./tables";

/** How long an isolate trusts a live answer for an access token's grant. */
export const LIVE_CACHE_MS = 15_000;

export interface LiveGrant {
  grant: GrantRow;
  user: UserRow;
  client: ClientApplicationRow;
}

export type GrantCheck = { live: true; value: LiveGrant } | { live: false; reason: string };

export async function createGrant(db: Database, row: GrantRow): Promise<GrantRow> {
  await db.insert(smartGrants).values(row);
  return row;
}

/** Revokes the grant (its refresh tokens and access tokens with it); whether it was live. */
export async function revokeGrant(db: Database, grantId: string, reason: string, now = Date.now()): Promise<boolean> {
  liveCache.delete(grantId);
  const done = await db
    .update(smartGrants)
    .set({ revokedAt: new Date(now).toISOString(), revokedReason: reason.slice(0, 200) })
    .where(and(eq(smartGrants.id, grantId), isNull(smartGrants.revokedAt)))
    .returning({ id: smartGrants.id });
  return done.length === 1;
}

/** Whether the grant is live now, and what it is (read from the database). */
export async function checkGrant(db: Database, env: object, orgId: string, grantId: string, now = Date.now()): Promise<GrantCheck> {
  const hit = await db
    .select({ grant: smartGrants, user: users, client: clientApplications })
    .from(smartGrants)
    .leftJoin(users, and(eq(users.id, smartGrants.userId), eq(users.orgId, smartGrants.orgId)))
    .leftJoin(clientApplications, and(eq(clientApplications.id, smartGrants.clientId), eq(clientApplications.orgId, smartGrants.orgId)))
    .where(and(eq(smartGrants.id, grantId), eq(smartGrants.orgId, orgId)))
    .get();
  if (!hit) return { live: false, reason: "unknown grant" };
  const { grant, user, client } = hit;
  if (grant.revokedAt) return { live: false, reason: `revoked: ${grant.revokedReason ?? "revoked"}` };
  if (user?.status !== "active") return { live: false, reason: "the user is not active" };
  if (client?.status !== "active") return { live: false, reason: "the client is disabled or deleted" };
  if (grant.sessionHash) {
    const entry = await new ConsoleSessionStore(db).findByHash(grant.sessionHash);
    const session = entry?.session;
    if (!session || session.userId !== grant.userId || session.revokedAt || now >= sessionEndsAt(session, sessionLifetimes(env))) {
      return { live: false, reason: "online_access: the console session that approved it has ended" };
    }
  }
  return { live: true, value: { grant, user, client } };
}

const liveCache = new Map<string, { check: GrantCheck; until: number }>();

/** checkGrant for the FHIR endpoint's access tokens: a live answer is kept LIVE_CACHE_MS, a dead one is not cached (it stays dead). */
export async function checkGrantCached(db: Database, env: object, orgId: string, grantId: string, now = Date.now()): Promise<GrantCheck> {
  const hit = liveCache.get(grantId);
  if (hit && hit.until > now && hit.check.live && hit.check.value.grant.orgId === orgId) return hit.check;
  const check = await checkGrant(db, env, orgId, grantId, now);
  if (check.live) {
    if (liveCache.size > 10_000) liveCache.clear();
    liveCache.set(grantId, { check, until: now + LIVE_CACHE_MS });
  } else liveCache.delete(grantId);
  return check;
}

/** Forgets every cached grant of a client or user changed in this isolate (disabled, deleted). */
export function forgetGrants(match: (grant: GrantRow) => boolean): void {
  for (const [id, entry] of liveCache) if (entry.check.live && match(entry.check.value.grant)) liveCache.delete(id);
}
