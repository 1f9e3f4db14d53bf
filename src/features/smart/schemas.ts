// Request and response shapes of the client-application API and the token endpoint.
import { z } from "@hono/zod-openapi";
import type { JWK } from "jose";
import { jsonAtMost } from "../../platform/http/schemas";
import type { ClientApplicationRow } from "./tables";

const Jwks = z
  .object({ keys: z.array(z.object({ kty: z.string() }).passthrough()).min(1).max(10) })
  .superRefine(jsonAtMost(32_768))
  .openapi({ description: "The client's public keys (a JWK Set): RSA keys for RS384 or EC P-384 keys for ES384; never a private key" });

const Scopes = z
  .array(z.string().min(1).max(200))
  .min(1)
  .max(100)
  .openapi({ description: "The system/ SMART scopes tokens may be granted (system/Patient.rs, system/*.read...)", example: ["system/Patient.rs", "system/Observation.read"] });

export const CreateClientBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    jwks: Jwks.optional(),
    jwks_url: z.string().url().max(2000).optional().openapi({ description: "Where the client publishes its JWK Set (https), instead of jwks" }),
    scopes: Scopes,
    status: z.enum(["active", "disabled"]).optional(),
  })
  .openapi("CreateClientApplication");

export const UpdateClientBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    jwks: Jwks.nullable().optional(),
    jwks_url: z.string().url().max(2000).nullable().optional(),
    scopes: Scopes.optional(),
    status: z.enum(["active", "disabled"]).optional(),
  })
  .openapi("UpdateClientApplication");

export const ClientApplicationSchema = z
  .object({
    id: z.string().openapi({ description: "The client_id: the iss and sub of its assertions" }),
    name: z.string(),
    kind: z.enum(["backend"]),
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

export function presentClient(row: ClientApplicationRow): z.infer<typeof ClientApplicationSchema> {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
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

export const TokenForm = z
  .object({
    grant_type: z.string().openapi({ example: "client_credentials" }),
    client_assertion_type: z.string().openapi({ example: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" }),
    client_assertion: z.string().openapi({ description: "A JWT signed (RS384 or ES384) with a key the client registered: iss = sub = client_id, aud = this URL, exp at most 5 minutes ahead, a jti never used before" }),
    scope: z.string().openapi({ example: "system/Patient.rs" }),
    client_id: z.string().optional(),
  })
  .openapi("TokenRequest");

export const TokenSchema = z
  .object({ access_token: z.string(), token_type: z.literal("bearer"), expires_in: z.number().int(), scope: z.string() })
  .openapi("TokenResponse");

export const OAuthErrorSchema = z.object({ error: z.string(), error_description: z.string() }).openapi("OAuthError");
