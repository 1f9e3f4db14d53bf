// API key records. The secret is returned once at creation and stored only as a hash.
import { and, count, desc, eq, isNull } from "drizzle-orm";
import { displayPrefix, generateApiKey, hashApiKey } from "./auth/api-key-crypto";
import type { Role } from "./auth/permissions";
import type { Database } from "../../platform/db/client";
import { type UserRow, users } from "../identity";
import { type ApiKeyRow, apiKeys, organizations } from "./tables";

export interface NewApiKey {
  orgId: string;
  name: string;
  role: Role;
  scopes?: string[];
  createdBy?: string;
  /** A personal key's user. */
  ownerUserId?: string;
  /** Only for seeding a fixed development key; normally generated. */
  secret?: string;
}

export interface KeyWithOrg {
  key: ApiKeyRow;
  /** A personal key's user, as they are now (null for the organization's keys). */
  owner?: UserRow | null;
  orgLimits: unknown;
  /** The org's directory entry (src/platform/directory.ts), read in the same query. */
  orgShard: string;
  orgMovingTo: string | null;
}

export class ApiKeyStore {
  constructor(private readonly db: Database) {}

  async create(input: NewApiKey): Promise<{ row: ApiKeyRow; secret: string }> {
    const secret = input.secret ?? generateApiKey();
    const row: ApiKeyRow = {
      id: crypto.randomUUID(),
      orgId: input.orgId,
      name: input.name,
      role: input.role,
      scopes: input.scopes ?? [],
      keyHash: await hashApiKey(secret),
      keyPrefix: displayPrefix(secret),
      createdAt: new Date().toISOString(),
      createdBy: input.createdBy ?? null,
      lastUsedAt: null,
      revokedAt: null,
      accessPolicyId: null,
      ownerUserId: input.ownerUserId ?? null,
    };
    await this.db.insert(apiKeys).values(row);
    return { row, secret };
  }

  /** The key matching a secret's hash, with its organization's limit overrides. */
  async findByHash(keyHash: string): Promise<KeyWithOrg | undefined> {
    const hit = await this.db
      .select({ key: apiKeys, owner: users, orgLimits: organizations.limits, orgShard: organizations.shard, orgMovingTo: organizations.movingTo })
      .from(apiKeys)
      .innerJoin(organizations, eq(organizations.id, apiKeys.orgId))
      .leftJoin(users, and(eq(users.id, apiKeys.ownerUserId), eq(users.orgId, apiKeys.orgId)))
      .where(eq(apiKeys.keyHash, keyHash))
      .get();
    return hit ?? undefined;
  }

  /** A page of the organization's keys, or of one user's personal keys. */
  async list(orgId: string, limit: number, offset: number, ownerUserId?: string): Promise<{ rows: ApiKeyRow[]; total: number }> {
    const where = and(eq(apiKeys.orgId, orgId), ownerUserId === undefined ? undefined : eq(apiKeys.ownerUserId, ownerUserId));
    const [rows, totals] = await Promise.all([
      this.db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(apiKeys).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  /** The key of this org (and of this owner, when given). */
  async get(orgId: string, id: string, ownerUserId?: string): Promise<ApiKeyRow | undefined> {
    return this.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id), ownerUserId === undefined ? undefined : eq(apiKeys.ownerUserId, ownerUserId)))
      .get();
  }

  /** Marks the key revoked; undefined when it does not exist in this org (or is not this owner's, when given). */
  async revoke(orgId: string, id: string, ownerUserId?: string): Promise<ApiKeyRow | undefined> {
    const now = new Date().toISOString();
    await this.db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt), ownerUserId === undefined ? undefined : eq(apiKeys.ownerUserId, ownerUserId)));
    return this.get(orgId, id, ownerUserId);
  }

  /** Sets the access policy a live key acts under (null: none), when it acts under `from` (if given); undefined when no such live key of this org has the id. */
  async setAccessPolicy(orgId: string, id: string, accessPolicyId: string | null, from?: string): Promise<ApiKeyRow | undefined> {
    const rows = await this.db
      .update(apiKeys)
      .set({ accessPolicyId })
      .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt), from === undefined ? undefined : eq(apiKeys.accessPolicyId, from)))
      .returning();
    return rows[0];
  }

  /** The live keys acting under an access policy. */
  holding(orgId: string, accessPolicyId: string): Promise<ApiKeyRow[]> {
    return this.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.accessPolicyId, accessPolicyId), isNull(apiKeys.revokedAt)));
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
  }
}
