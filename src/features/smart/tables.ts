// SMART Backend Services' control-database tables: the registered client applications, each
// org's access-token signing keys, and the client-assertion jtis already used (replay guard).
// In the control database because the token endpoint and the bearer check run before an org's
// shard is known, beside the API keys they stand in for.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { JWK } from "jose";
import { organizations } from "../tenancy/tables";

export const clientApplications = sqliteTable(
  "client_applications",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["backend"] }).notNull(),
    /** The client's public keys (a JWK Set), when registered inline. */
    jwks: text("jwks", { mode: "json" }).$type<{ keys: JWK[] }>(),
    /** Where the client publishes its JWK Set, when not inline. */
    jwksUrl: text("jwks_url"),
    /** The system/ SMART scopes a token may be granted. */
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

export type ClientApplicationRow = typeof clientApplications.$inferSelect;
export type SigningKeyRow = typeof smartSigningKeys.$inferSelect;
