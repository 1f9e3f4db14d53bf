// Request and response shapes of the client-application API and the token endpoint.
import { z } from "@hono/zod-openapi";
import type { JWK } from "jose";
import { jsonAtMost } from "../../platform/http/schemas";
import { type ClientApplicationRow, GRANT_TYPES } from "./tables";

const Jwks = z
  .object({ keys: z.array(z.object({ kty: z.string() }).passthrough()).min(1).max(10) })
  .superRefine(jsonAtMost(32_768))
  .openapi({ description: "The client's public keys (a JWK Set): RSA keys for RS384 or EC P-384 keys for ES384; never a private key" });

const Scopes = z
  .array(z.string().min(1).max(200))
  .min(1)
  .max(100)
  .openapi({
    description: "The SMART scopes tokens may be granted: system/ scopes for client_credentials (system/Patient.rs); patient/, user/ and openid, fhirUser, launch, launch/patient, launch/encounter, offline_access, online_access for authorization_code",
    example: ["system/Patient.rs", "system/Observation.read"],
  });

const GrantTypes = z
  .array(z.enum(GRANT_TYPES))
  .min(1)
  .max(3)
  .openapi({ description: "Default: authorization_code and refresh_token when redirect_uris are given, else client_credentials" });
const RedirectUris = z.array(z.string().min(1).max(2000)).max(20).openapi({ description: "Exact-match redirect URIs: https, or http on localhost / 127.0.0.1 / [::1]" });
const LaunchUri = z.string().max(2000).openapi({ description: "Where the console's EHR launch opens the app (`?iss=<FHIR base>&launch=<value>` is appended)" });
const ClientType = z.enum(["public", "confidential"]).openapi({
  description: "public: no credential (PKCE only; a browser or native app). confidential: a client secret (generated and shown once, client_secret_basic or client_secret_post) unless jwks/jwks_url are given (private_key_jwt). Default confidential",
});

export const CreateClientBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    jwks: Jwks.optional(),
    jwks_url: z.string().url().max(2000).optional().openapi({ description: "Where the client publishes its JWK Set (https), instead of jwks" }),
    scopes: Scopes,
    status: z.enum(["active", "disabled"]).optional(),
    type: ClientType.optional(),
    grant_types: GrantTypes.optional(),
    redirect_uris: RedirectUris.optional(),
    launch_uri: LaunchUri.optional(),
  })
  .openapi("CreateClientApplication");

export const UpdateClientBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    jwks: Jwks.nullable().optional(),
    jwks_url: z.string().url().max(2000).nullable().optional(),
    scopes: Scopes.optional(),
    status: z.enum(["active", "disabled"]).optional(),
    grant_types: GrantTypes.optional(),
    redirect_uris: RedirectUris.optional(),
    launch_uri: LaunchUri.nullable().optional(),
  })
  .openapi("UpdateClientApplication");

export const ClientApplicationSchema = z
  .object({
    id: z.string().openapi({ description: "The client_id (for a backend, the iss and sub of its assertions)" }),
    name: z.string(),
    kind: z.enum(["backend", "app"]).openapi({ description: "app when a user authorizes it (authorization_code), else backend" }),
    type: z.enum(["public", "confidential"]),
    token_endpoint_auth_methods: z.array(z.enum(["none", "client_secret_basic", "client_secret_post", "private_key_jwt"])).openapi({ description: "How it authenticates at the token endpoint" }),
    grant_types: z.array(z.enum(GRANT_TYPES)),
    redirect_uris: z.array(z.string()),
    launch_uri: z.string().nullable(),
    secret_created_at: z.string().nullable().openapi({ description: "When its current client secret was made (null: it has none)" }),
    client_secret: z.string().optional().openapi({ description: "The client secret: only in the answer that made it (registration, rotation); stored hashed, never shown again" }),
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).nullable(),
    jwks_url: z.string().nullable(),
    scopes: z.array(z.string()),
    status: z.enum(["active", "disabled"]),
    created_at: z.string(),
    created_by: z.string().nullable(),
    access_policy_id: z.string().nullable().openapi({ description: "The access policy its tokens act under (fixed in each token as it is issued) (PUT /api/v1/access-policies/{id}/assignments/...); null: none" }),
  })
  .openapi("ClientApplication");

export const ClientIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

type AuthMethod = "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt";

export function authMethodsOf(row: ClientApplicationRow): AuthMethod[] {
  if (row.type === "public") return ["none"];
  const methods: AuthMethod[] = [];
  if (row.secretHash) methods.push("client_secret_basic", "client_secret_post");
  if (row.jwks || row.jwksUrl) methods.push("private_key_jwt");
  return methods;
}

export function presentClient(row: ClientApplicationRow, secret?: string): z.infer<typeof ClientApplicationSchema> {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    type: row.type,
    token_endpoint_auth_methods: authMethodsOf(row),
    grant_types: row.grantTypes,
    redirect_uris: row.redirectUris,
    launch_uri: row.launchUri,
    secret_created_at: row.secretCreatedAt,
    ...(secret ? { client_secret: secret } : {}),
    jwks: row.jwks as { keys: Record<string, unknown>[] } | null,
    jwks_url: row.jwksUrl,
    scopes: row.scopes,
    status: row.status,
    created_at: row.createdAt,
    created_by: row.createdBy,
    access_policy_id: row.accessPolicyId,
  };
}

/** The schema's JWK Set as jose types it (the use case checks each key). */
export const asJwks = (v: { keys: { kty: string }[] } | null | undefined) => v as { keys: JWK[] } | null | undefined;

const opt = (description: string, example?: string) => z.string().optional().openapi({ description, ...(example ? { example } : {}) });

export const TokenForm = z
  .object({
    grant_type: z.string().openapi({ description: "authorization_code, refresh_token or client_credentials", example: "authorization_code" }),
    code: opt("authorization_code: the code from the authorization endpoint (60 s, once)"),
    redirect_uri: opt("authorization_code: the redirect_uri of the authorization request, exactly"),
    code_verifier: opt("authorization_code: the PKCE verifier whose S256 is the request's code_challenge"),
    refresh_token: opt("refresh_token: the latest refresh token (each is used once; a reused one revokes the grant)"),
    scope: opt("client_credentials: the system/ scopes asked for; refresh_token: a subset of the grant's scopes (narrowing)", "system/Patient.rs"),
    client_id: opt("A public client's id (or a client_secret_post client's)"),
    client_secret: opt("client_secret_post"),
    client_assertion_type: opt("private_key_jwt", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
    client_assertion: opt("private_key_jwt: a JWT signed (RS384 or ES384) with a key the client registered: iss = sub = client_id, aud = the token URL, exp at most 5 minutes ahead, a jti never used before"),
  })
  .openapi("TokenRequest");

export const TokenSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    scope: z.string(),
    refresh_token: z.string().optional().openapi({ description: "With offline_access or online_access granted; rotated on each use" }),
    id_token: z.string().optional().openapi({ description: "With openid granted: signed with the org's key (ES384): iss the FHIR base, sub the user, aud the client, fhirUser, nonce" }),
    patient: z.string().optional(),
    encounter: z.string().optional(),
    fhirUser: z.string().optional(),
    need_patient_banner: z.boolean().optional(),
    smart_style_url: z.string().optional(),
  })
  .openapi("TokenResponse");

export const OAuthErrorSchema = z.object({ error: z.string(), error_description: z.string() }).openapi("OAuthError");

export const TokenOpForm = z
  .object({
    token: z.string().openapi({ description: "An access token or refresh token of this organization" }),
    token_type_hint: opt("access_token or refresh_token (a hint only)"),
    client_id: opt("The client's id (a public client revoking its own token; client_secret_post)"),
    client_secret: opt("client_secret_post"),
    client_assertion_type: opt("private_key_jwt"),
    client_assertion: opt("private_key_jwt (aud: the token URL or this endpoint's URL)"),
  })
  .openapi("TokenOperationRequest");

export const IntrospectionSchema = z
  .object({ active: z.boolean() })
  .passthrough()
  .openapi("TokenIntrospection", { description: "RFC 7662: active, and for an active token scope, client_id, sub, exp, iat, iss, token_type, patient, encounter, fhirUser" });

export const LaunchBody = z
  .object({
    client_id: z.string().min(1).max(200).openapi({ description: "The app to launch (a client with a launch_uri)" }),
    patient: z.string().regex(/^[A-Za-z0-9.-]{1,64}$/).openapi({ description: "The id of the patient open in the console" }),
    encounter: z.string().regex(/^[A-Za-z0-9.-]{1,64}$/).optional().openapi({ description: "The id of the encounter open, if any" }),
  })
  .openapi("SmartLaunchRequest");

export const LaunchSchema = z
  .object({
    launch: z.string().openapi({ description: "The opaque launch value (5 minutes, once)" }),
    launch_url: z.string().openapi({ description: "Open this: the app's launch_uri with iss and launch" }),
    iss: z.string().openapi({ description: "The org's FHIR base URL" }),
    expires_at: z.string(),
  })
  .openapi("SmartLaunch");

export const LaunchableAppsSchema = z
  .object({
    apps: z.array(z.object({ id: z.string(), name: z.string(), launch_uri: z.string() }).openapi("LaunchableApp")),
  })
  .openapi("LaunchableApps", { description: "The organization's active apps that have a launch_uri, by name (at most 100)" });
