// Console session records. The session id (256 random bits) goes to the browser in a cookie and
// is stored only as its SHA-256 hash, like an API key; a session lives and dies with its key.
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";
import { generateApiKey, hashApiKey } from "../auth/api-key-crypto";
import type { KeyWithOrg } from "../api-keys";
import { apiKeys, type ConsoleSessionRow, consoleSessions, organizations } from "../tables";

export interface SessionWithKey extends KeyWithOrg {
  session: ConsoleSessionRow;
  orgName: string;
}

/** A new session id: the key format's 256 random bits under its own prefix. */
function newSessionId(): string {
  return `sess_${generateApiKey().slice("cdis_".length)}`;
}

export const SESSION_ID_PATTERN = /^sess_[A-Za-z0-9_-]{43}$/;

export class ConsoleSessionStore {
  constructor(private readonly db: Database) {}

  async create(orgId: string, keyId: string, now: number, maxSeconds: number): Promise<{ id: string; row: ConsoleSessionRow }> {
    const id = newSessionId();
    const at = new Date(now).toISOString();
    const row: ConsoleSessionRow = {
      idHash: await hashApiKey(id),
      orgId,
      keyId,
      createdAt: at,
      lastSeenAt: at,
      expiresAt: new Date(now + maxSeconds * 1000).toISOString(),
      revokedAt: null,
    };
    await this.db.insert(consoleSessions).values(row);
    return { id, row };
  }

  /** The session with its key and the key's organization (one query, as a key lookup is). */
  async findByHash(idHash: string): Promise<SessionWithKey | undefined> {
    const hit = await this.db
      .select({
        session: consoleSessions,
        key: apiKeys,
        orgName: organizations.name,
        orgLimits: organizations.limits,
        orgShard: organizations.shard,
        orgMovingTo: organizations.movingTo,
      })
      .from(consoleSessions)
      .innerJoin(apiKeys, and(eq(apiKeys.id, consoleSessions.keyId), eq(apiKeys.orgId, consoleSessions.orgId)))
      .innerJoin(organizations, eq(organizations.id, consoleSessions.orgId))
      .where(eq(consoleSessions.idHash, idHash))
      .get();
    return hit ?? undefined;
  }

  async touch(idHash: string, at: string): Promise<void> {
    await this.db.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.idHash, idHash));
  }

  async revoke(idHash: string, at: string): Promise<void> {
    await this.db.update(consoleSessions).set({ revokedAt: at }).where(and(eq(consoleSessions.idHash, idHash), isNull(consoleSessions.revokedAt)));
  }
}
