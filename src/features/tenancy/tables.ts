// Drizzle schema of the service's D1 tables. `npm run db:generate` turns changes
// into SQL under migrations/. Every tenant-owned table leads its keys with org_id.
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "../../platform/db/organizations-table";
import { ROLES } from "../../platform/principal";

export { organizations };

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull().default([]),
    keyHash: text("key_hash").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
    /** The access policy (features/access-policies) the key acts under; null: none narrows it. */
    accessPolicyId: text("access_policy_id"),
    /**
     * A personal key's user (features/identity's users; no foreign key, which would close a cycle
     * of the two features' tables): it acts as that person, with their current role, and stops
     * when they are disabled. Null: the organization's key, with its own role.
     */
    ownerUserId: text("owner_user_id"),
  },
  (t) => [
    uniqueIndex("api_keys_hash_uq").on(t.keyHash),
    index("api_keys_org_created_idx").on(t.orgId, t.createdAt),
    index("api_keys_org_owner_idx").on(t.orgId, t.ownerUserId),
  ],
);

export type OrganizationRow = typeof organizations.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * Web console sessions (issue #19): a sign-in with an API key, or a user's password (issue #34),
 * exchanged for a random session id, kept only as its SHA-256 hash. In the control database beside the keys because a session
 * authenticates like its key (one joined lookup) and dies with it when the key is revoked.
 */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    /** The key signed in with; null for a user's password sign-in. */
    keyId: text("key_id").references(() => apiKeys.id),
    /**
     * The user signed in (features/identity); null for a key's session. No foreign key in the
     * schema: identity's table refers to organizations here, and a reference back would be a cycle.
     */
    userId: text("user_id"),
    createdAt: text("created_at").notNull(),
    /** Sliding expiry: idle longer than CONSOLE_SESSION_IDLE_SECONDS after this and the session is over. */
    lastSeenAt: text("last_seen_at").notNull(),
    /** Absolute expiry (CONSOLE_SESSION_MAX_SECONDS after sign-in), however active the session. */
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("console_sessions_key_idx").on(t.keyId), index("console_sessions_user_idx").on(t.userId)],
);

export type ConsoleSessionRow = typeof consoleSessions.$inferSelect;
