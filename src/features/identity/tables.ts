// The people of an organization (issue #34): who signs in to the console, with which role. In the
// control database beside the keys and console sessions, because a session's lookup joins its user
// (a disabled user's sessions stop at once) and sign-in names the org before any shard is known.
// Also their organization's single sign-on: its identity provider and the pending sign-ins.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ROLES, type Role } from "../../platform/principal";
import { organizations } from "../../platform/db/organizations-table";

export const USER_STATUSES = ["active", "invited", "disabled"] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const SIGN_IN_METHODS = ["password", "sso"] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    /** Lowercased: the login, unique in its organization. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    /** The FHIR resource the user is (`Practitioner/123`): SMART's fhirUser, the AuditEvent's agent. */
    fhirUser: text("fhir_user"),
    status: text("status", { enum: USER_STATUSES }).notNull(),
    /** `scrypt$N$r$p$salt$hash` (password.ts); null until the invitation is accepted. */
    passwordHash: text("password_hash"),
    /** SHA-256 of the one-time invitation token; cleared once accepted. */
    invitationHash: text("invitation_hash"),
    invitationExpiresAt: text("invitation_expires_at"),
    /** Consecutive failed sign-ins; a success resets it. */
    failedSignIns: integer("failed_sign_ins").notNull().default(0),
    lockedUntil: text("locked_until"),
    lastSignInAt: text("last_sign_in_at"),
    /** How the last successful sign-in was made: `password` or `sso` (OpenID Connect). */
    lastSignInMethod: text("last_sign_in_method", { enum: SIGN_IN_METHODS }),
    /**
     * The OpenID Connect issuer this user is bound to, with `externalSubject` its `sub` for them:
     * set at the first single sign-on, after which only that subject signs in as this user (an
     * email changed at the IdP cannot take over another account). Null until then.
     */
    identityProvider: text("identity_provider"),
    externalSubject: text("external_subject"),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
    /** The access policy (features/access-policies) the user acts under; null: none narrows them. */
    accessPolicyId: text("access_policy_id"),
    /**
     * The TOTP second factor of password sign-in (totp/): the RFC 6238 secret, AES-GCM sealed
     * (connectors' key) and bound to the user; set once an enrollment is confirmed with a code.
     */
    totpSecretEnc: text("totp_secret_enc"),
    /** An enrollment started and not yet confirmed: its sealed secret. */
    totpPendingEnc: text("totp_pending_enc"),
    totpEnabledAt: text("totp_enabled_at"),
    /** The RFC 6238 time step of the last code accepted: a code is good once (RFC 6238 §5.2). */
    totpLastStep: integer("totp_last_step"),
    /** SHA-256 (hex) of each unused recovery code. */
    totpRecoveryHashes: text("totp_recovery_hashes", { mode: "json" }).$type<string[]>(),
  },
  (t) => [
    uniqueIndex("users_org_email_uq").on(t.orgId, t.email),
    uniqueIndex("users_invitation_uq").on(t.invitationHash),
    index("users_org_created_idx").on(t.orgId, t.createdAt),
    // One account per IdP subject in an organization (NULLs, the unbound users, do not collide).
    uniqueIndex("users_org_subject_uq").on(t.orgId, t.identityProvider, t.externalSubject),
  ],
);

export type UserRow = typeof users.$inferSelect;

// Single sign-on (sso/): an organization's OpenID Connect identity providers (several per
// organization: a hospital's staff IdP and its partners'), the pending sign-ins (one row per
// `state`, single use, ten minutes) and the console sessions a single sign-on opened (with the ID
// token that ends the IdP's session at sign-out). Here too because the public start and callback
// name the organization in the path before any shard is needed, and a sign-in ends in a user row
// and a console session, both control tables.

/** Which claim decides a just-in-time user's role, and how its values map to roles. */
export interface RoleMapping {
  /** The ID token claim (`groups`, `roles`; a dotted path such as `realm_access.roles` when no claim has that exact name). */
  claim: string;
  /** Claim value → role. A claim holding several values maps to the most privileged role any of them names. */
  values: Record<string, Exclude<Role, "service">>;
  /** The role when no value maps; null refuses the sign-in (NO_ROLE_MAPPED). */
  default: Exclude<Role, "service"> | null;
  /** Apply the mapping at every sign-in, not only when the user is created (the IdP then manages roles). */
  sync: boolean;
}

export const identityProviders = sqliteTable(
  "identity_providers",
  {
    /** `idp_` and 32 hex digits; what `?idp=` names at the start and a pending sign-in is bound to. */
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    displayName: text("display_name").notNull(),
    /** The issuer identifier, exactly as the discovery document's `issuer` and the ID tokens' `iss`. */
    issuer: text("issuer").notNull(),
    clientId: text("client_id").notNull(),
    /** The client secret, AES-GCM sealed (connectors' key), bound to the organization. */
    clientSecretEnc: text("client_secret_enc").notNull(),
    /** What the API shows instead of the secret (`****` and its last four characters). */
    clientSecretHint: text("client_secret_hint").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    /** The claim carrying the user's email (`email`; Entra ID without the optional claim: `preferred_username`). */
    emailClaim: text("email_claim").notNull(),
    roleMapping: text("role_mapping", { mode: "json" }).$type<RoleMapping>().notNull(),
    /** Lowercased; empty: any domain (only without just-in-time provisioning). */
    allowedDomains: text("allowed_domains", { mode: "json" }).$type<string[]>().notNull(),
    jitProvisioning: integer("jit_provisioning", { mode: "boolean" }).notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    updatedBy: text("updated_by"),
  },
  (t) => [index("identity_providers_org_idx").on(t.orgId, t.createdAt)],
);

export type IdentityProviderRow = typeof identityProviders.$inferSelect;

export const ssoStates = sqliteTable(
  "sso_states",
  {
    /** SHA-256 of the random `state` parameter: the row is found by it, and taken by the first callback. */
    stateHash: text("state_hash").primaryKey(),
    orgId: text("org_id").notNull(),
    /** The identity provider the sign-in started at: the callback completes it there and nowhere else. */
    idpId: text("idp_id").notNull(),
    /** SHA-256 of the random value in the browser's `cdis_sso` cookie: the callback must come from the browser that started. */
    browserHash: text("browser_hash").notNull(),
    /** The issuer and client the sign-in started against: a configuration changed meanwhile fails it. */
    issuer: text("issuer").notNull(),
    clientId: text("client_id").notNull(),
    /** Sealed `{ verifier, nonce }`: the PKCE code verifier and the ID token's expected nonce. */
    secretsEnc: text("secrets_enc").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    /** The console path to land on once signed in. */
    returnTo: text("return_to").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("sso_states_org_expiry_idx").on(t.orgId, t.expiresAt)],
);

export type SsoStateRow = typeof ssoStates.$inferSelect;

/**
 * A console session opened by single sign-on, with what ends the IdP's session when the user
 * signs out (OpenID Connect RP-Initiated Logout 1.0): the ID token, sealed, sent back as
 * `id_token_hint`. Gone at sign-out, with its identity provider, or once the session's maximum
 * lifetime has passed.
 */
export const ssoSessions = sqliteTable(
  "sso_sessions",
  {
    /** The console session's id hash (tenancy's console_sessions.id_hash). */
    sessionHash: text("session_hash").primaryKey(),
    orgId: text("org_id").notNull(),
    idpId: text("idp_id").notNull(),
    /** The ID token the sign-in received, AES-GCM sealed (connectors' key), bound to the session. */
    idTokenEnc: text("id_token_enc").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("sso_sessions_org_expiry_idx").on(t.orgId, t.expiresAt), index("sso_sessions_idp_idx").on(t.idpId)],
);

/**
 * A password sign-in waiting for its second factor (totp/sign-in.ts): the password was right, the
 * TOTP or recovery code is still owed. Single use and five minutes; found by the SHA-256 of the
 * challenge token the first step answered. Only a password proven here opens the second step, so
 * the password is never sent twice.
 */
export const signInChallenges = sqliteTable(
  "sign_in_challenges",
  {
    challengeHash: text("challenge_hash").primaryKey(),
    orgId: text("org_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("sign_in_challenges_user_idx").on(t.userId)],
);
