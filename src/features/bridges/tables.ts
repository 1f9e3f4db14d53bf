// D1 table of the organization's bridges (on the org's shard): one row per registered
// on-premises bridge, with the SHA-256 of its credential (the secret itself is shown once).
// A bridge's live state (connected, last seen, version, host) is its relay Durable Object's.
import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const bridges = sqliteTable(
  "bridges",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    /** SHA-256 (hex) of the whole credential. */
    credentialHash: text("credential_hash").notNull(),
    /** The credential's first characters, so people can tell credentials apart. */
    credentialPrefix: text("credential_prefix").notNull(),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
    credentialRotatedAt: text("credential_rotated_at"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("bridges_created_idx").on(t.orgId, t.createdAt)],
);

export type BridgeRow = typeof bridges.$inferSelect;
