// Device links' platform tokens and pending OAuth authorizations, on the org's shard.
// Tokens are AES-GCM sealed (features/connectors/crypto), bound to org + device link id;
// `version` is the compare-and-swap guard that keeps a rotated refresh token pair whole.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const devicePlatformLinks = sqliteTable(
  "device_platform_links",
  {
    orgId: text("org_id").notNull(),
    /** The device core's device link id (the FHIR Device the readings come from). */
    deviceId: text("device_id").notNull(),
    kind: text("kind").notNull(),
    patientId: text("patient_id").notNull(),
    /** The vendor's id for the user (Suunto: username); webhooks find the link by it. */
    platformUserId: text("platform_user_id").notNull(),
    /** Sealed PlatformTokens JSON. */
    tokensEnc: text("tokens_enc").notNull(),
    expiresAt: text("expires_at"),
    version: integer("version").notNull(),
    /** While set and in the future, one refresh holds the lease: others wait for its pair. */
    refreshLeaseUntil: text("refresh_lease_until"),
    /** active | inactive */
    status: text("status").notNull(),
    statusReason: text("status_reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.deviceId] }), index("device_platform_links_user_idx").on(t.orgId, t.kind, t.platformUserId)],
);

export const deviceOAuthStates = sqliteTable(
  "device_oauth_states",
  {
    orgId: text("org_id").notNull(),
    /** The random `state` parameter: single use, bound to this org, patient and device. */
    state: text("state").notNull(),
    kind: text("kind").notNull(),
    patientId: text("patient_id").notNull(),
    deviceId: text("device_id").notNull(),
    /** Sealed PKCE code verifier (empty string sealed when the vendor has no PKCE). */
    verifierEnc: text("verifier_enc").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.state] }), index("device_oauth_states_expiry_idx").on(t.orgId, t.expiresAt)],
);

export type DevicePlatformLinkRow = typeof devicePlatformLinks.$inferSelect;
