// Console session records. The session id (256 random bits) goes to the browser in a cookie and
// is stored only as its SHA-256 hash, like an API key; a session lives and dies with its key, or
// with its user (a user's password sign-in, features/identity).
import { and, eq, isNull } from "drizzle-orm";
import { type UserRow, users } from "../../identity";
import type { Database } from "../../../platform/db/client";
import { generateApiKey, hashApiKey } from "../auth/api-key-crypto";
import type { KeyWithOrg } from "../api-keys";
import { type ApiKeyRow, apiKeys, type ConsoleSessionRow, consoleSessions, organizations } from "../tables";

/** A session with what it is bound to: its key, or its user (exactly one of the two). */
export interface SessionWithKey extends Omit<KeyWithOrg, "key"> {
  session: ConsoleSessionRow;
  key: ApiKeyRow | null;
  user: UserRow | null;
  orgName: string;
}

export type SessionBinding = { keyId: string; userId?: undefined } | { userId: string; keyId?: undefined };

/** A new session id: the key format's 256 random bits under its own prefix. */
function newSessionId(): string {
  return `sess_${generateApiKey().slice("cdis_".length)}`;
}

export const SESSION_ID_PATTERN = /^sess_[A-Za-z0-9_-]{43}$/;

export class ConsoleSessionStore {
  constructor(private readonly db: Database) {}

  async create(orgId: string, binding: SessionBinding, now: number, maxSeconds: number): Promise<{ id: string; row: ConsoleSessionRow }> {
    const id = newSessionId();
    const at = new Date(now).toISOString();
    const row: ConsoleSessionRow = {
      idHash: await hashApiKey(id),
      orgId,
      keyId: binding.keyId ?? null,
      userId: binding.userId ?? null,
      createdAt: at,
      lastSeenAt: at,
      expiresAt: new Date(now + maxSeconds * 1000).toISOString(),
      revokedAt: null,
    };
    await this.db.insert(consoleSessions).values(row);
    return { id, row };
  }

  /** The session with its key or user and their organization (one query, as a key lookup is). */
  async findByHash(idHash: string): Promise<SessionWithKey | undefined> {
    const hit = await this.db
      .select({
        session: consoleSessions,
        key: apiKeys,
        user: users,
        orgName: organizations.name,
        orgLimits: organizations.limits,
        orgShard: organizations.shard,
        orgMovingTo: organizations.movingTo,
      })
      .from(consoleSessions)
      .leftJoin(apiKeys, and(eq(apiKeys.id, consoleSessions.keyId), eq(apiKeys.orgId, consoleSessions.orgId)))
      .leftJoin(users, and(eq(users.id, consoleSessions.userId), eq(users.orgId, consoleSessions.orgId)))
      .innerJoin(organizations, eq(organizations.id, consoleSessions.orgId))
      .where(eq(consoleSessions.idHash, idHash))
      .get();
    // Bound to nothing it can find (a key or user of another org): no session.
    if (!hit || (!hit.key && !hit.user)) return undefined;
    return hit;
  }

  async touch(idHash: string, at: string): Promise<void> {
    await this.db.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.idHash, idHash));
  }

  async revoke(idHash: string, at: string): Promise<void> {
    await this.db.update(consoleSessions).set({ revokedAt: at }).where(and(eq(consoleSessions.idHash, idHash), isNull(consoleSessions.revokedAt)));
  }
}
