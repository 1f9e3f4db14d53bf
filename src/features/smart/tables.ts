// SMART's control-database tables: the registered client applications, each org's access-token
// signing keys, the client-assertion jtis already used (replay guard), and App Launch's state:
// EHR launch contexts, authorization requests (and the codes they become), the grants a user
// approved, and their rotating refresh tokens. In the control database because the token
// endpoint and the bearer check run before an org's shard is known, beside the API keys and the
// console sessions (a user's approval) they stand with.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { JWK } from "jose";
import { organizations } from "../../platform/db/organizations-table";

export const clientApplications = sqliteTable(
  "client_applications",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    /** "backend" (client_credentials only) or "app" (a user authorizes it: authorization_code). */
    kind: text("kind", { enum: ["backend", "app"] }).notNull(),
    /** public: no credential (PKCE alone); confidential: a client secret or its keys. */
    type: text("type", { enum: ["public", "confidential"] }).notNull().default("confidential"),
    /** SHA-256 (hex) of the client secret (client_secret_basic / _post), shown once; null for key or public clients. */
    secretHash: text("secret_hash"),
    secretCreatedAt: text("secret_created_at"),
    /** Exact-match redirect URIs (https, or http on a loopback host). */
    redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull().default([]),
    grantTypes: text("grant_types", { mode: "json" }).$type<GrantType[]>().notNull().default(["client_credentials"]),
    /** Where an EHR launch opens the app (`?iss=&launch=` appended). */
    launchUri: text("launch_uri"),
    /** The client's public keys (a JWK Set), when registered inline. */
    jwks: text("jwks", { mode: "json" }).$type<{ keys: JWK[] }>(),
    /** Where the client publishes its JWK Set, when not inline. */
    jwksUrl: text("jwks_url"),
    /** The SMART scopes a token may be granted (system/ for backends; patient/, user/, openid... for apps). */
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    status: text("status", { enum: ["active", "disabled"] }).notNull(),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
    /** The access policy (features/access-policies) the client's tokens act under, fixed in each token as it is issued. */
    accessPolicyId: text("access_policy_id"),
  },
  (t) => [index("client_applications_org_created_idx").on(t.orgId, t.createdAt)],
);

export const smartSigningKeys = sqliteTable(
  "smart_signing_keys",
  {
    kid: text("kid").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    alg: text("alg").notNull(),
    privateJwk: text("private_jwk", { mode: "json" }).$type<JWK>().notNull(),
    publicJwk: text("public_jwk", { mode: "json" }).$type<JWK>().notNull(),
    createdAt: text("created_at").notNull(),
    retiredAt: text("retired_at"),
  },
  (t) => [index("smart_signing_keys_org_idx").on(t.orgId, t.createdAt)],
);

/** A client assertion's jti, kept until the assertion's exp so it cannot be replayed. */
export const smartAssertionJtis = sqliteTable(
  "smart_assertion_jtis",
  {
    clientId: text("client_id").notNull(),
    jti: text("jti").notNull(),
    /** Epoch seconds: after it the assertion is expired anyway and the row may go. */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.jti] }), index("smart_assertion_jtis_exp_idx").on(t.expiresAt)],
);

export const GRANT_TYPES = ["authorization_code", "refresh_token", "client_credentials"] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** An EHR launch (POST /api/v1/smart/launches): the context the app's authorization binds; 5 minutes, once. */
export const smartLaunches = sqliteTable(
  "smart_launches",
  {
    /** SHA-256 (hex) of the launch value the app receives. */
    idHash: text("id_hash").primaryKey(),
    orgId: text("org_id").notNull(),
    clientId: text("client_id").notNull(),
    patient: text("patient").notNull(),
    encounter: text("encounter"),
    /** The user (or key) who launched: only that user may authorize it. */
    createdBy: text("created_by").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (t) => [index("smart_launches_exp_idx").on(t.expiresAt)],
);

/**
 * One authorization request, from the consent screen to its code's exchange: pending (shown to
 * the user), then approved (a code issued, 60 s), then exchanged (a grant made). A second
 * exchange of the code revokes that grant.
 */
export const smartAuthorizations = sqliteTable(
  "smart_authorizations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    clientId: text("client_id").notNull(),
    userId: text("user_id").notNull(),
    /** The console session that approved: online_access grants live only as long as it. */
    sessionHash: text("session_hash").notNull(),
    /** SHA-256 (hex) of the consent form's CSRF token. */
    csrfHash: text("csrf_hash").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    state: text("state"),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    codeChallenge: text("code_challenge").notNull(),
    nonce: text("nonce"),
    /** From the EHR launch, or the patient the user picked (standalone launch/patient). */
    patient: text("patient"),
    encounter: text("encounter"),
    ehrLaunch: integer("ehr_launch", { mode: "boolean" }).notNull().default(false),
    /** Epoch seconds: the consent screen's deadline, then the code's. */
    expiresAt: integer("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
    /** SHA-256 (hex) of the code, once approved. */
    codeHash: text("code_hash"),
    exchangedAt: text("exchanged_at"),
    /** The grant the code's exchange made (revoked if the code comes again). */
    grantId: text("grant_id"),
  },
  (t) => [uniqueIndex("smart_authorizations_code_uq").on(t.codeHash), index("smart_authorizations_exp_idx").on(t.expiresAt)],
);

/**
 * What a user approved for a client: the scopes and launch context every token of it carries. Its
 * access tokens name it (`gid`) and its refresh tokens are its family; revoking it stops them all.
 */
export const smartGrants = sqliteTable(
  "smart_grants",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    clientId: text("client_id").notNull(),
    userId: text("user_id").notNull(),
    /** online_access: the approving console session; its end ends the grant's refreshes. Null: offline (or none). */
    sessionHash: text("session_hash"),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    patient: text("patient"),
    encounter: text("encounter"),
    fhirUser: text("fhir_user"),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
    revokedReason: text("revoked_reason"),
  },
  (t) => [index("smart_grants_org_user_idx").on(t.orgId, t.userId)],
);

/** A refresh token (only its SHA-256 kept): used once, then replaced; a second use revokes the grant. */
export const smartRefreshTokens = sqliteTable(
  "smart_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id").notNull(),
    orgId: text("org_id").notNull(),
    clientId: text("client_id").notNull(),
    createdAt: text("created_at").notNull(),
    /** Epoch seconds. */
    expiresAt: integer("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (t) => [index("smart_refresh_tokens_grant_idx").on(t.grantId)],
);

export type ClientApplicationRow = typeof clientApplications.$inferSelect;
export type SigningKeyRow = typeof smartSigningKeys.$inferSelect;
export type LaunchRow = typeof smartLaunches.$inferSelect;
export type AuthorizationRow = typeof smartAuthorizations.$inferSelect;
export type GrantRow = typeof smartGrants.$inferSelect;
export type RefreshTokenRow = typeof smartRefreshTokens.$inferSelect;
