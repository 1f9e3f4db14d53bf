// Companion-app uploads (Apple Health, Health Connect), on the org's shard: the per-device
// upload tokens (only their SHA-256 is kept) and the newest version seen of each Health
// Connect record, which decides whether an upload replaces, or only repeats, what is stored.
import { integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const deviceUploadTokens = sqliteTable(
  "device_upload_tokens",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    /** The device core's device link (the FHIR Device) the token uploads for. */
    deviceId: text("device_id").notNull(),
    /** SHA-256 hex of the token; the token itself is shown once, at issue. */
    tokenHash: text("token_hash").notNull(),
    label: text("label"),
    createdBy: text("created_by").notNull(),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), uniqueIndex("device_upload_tokens_hash_idx").on(t.orgId, t.tokenHash)],
);

export const companionRecordVersions = sqliteTable(
  "companion_record_versions",
  {
    orgId: text("org_id").notNull(),
    deviceId: text("device_id").notNull(),
    /** The app's `clientRecordId`. */
    recordId: text("record_id").notNull(),
    version: integer("version").notNull(),
    /** The Observations this version became (retracted when a newer version arrives). */
    observationIds: text("observation_ids", { mode: "json" }).$type<string[]>().notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.deviceId, t.recordId] })],
);

export type DeviceUploadTokenRow = typeof deviceUploadTokens.$inferSelect;

/** When the patient first granted the companion app Health Connect access: reads reach back at most 30 days before it. */
export const companionGrants = sqliteTable(
  "companion_grants",
  {
    orgId: text("org_id").notNull(),
    deviceId: text("device_id").notNull(),
    firstGrantAt: text("first_grant_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.deviceId] })],
);
