// The SMART endpoints a client reaches without an access token: the token endpoint (the client
// authenticates with its signed assertion) and the org's JWK Set (what verifies the tokens).
// Mounted before authentication. Token errors are RFC 6749's JSON, never the API's error body.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { fhirBaseUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import type { HttpEnv } from "../../../platform/http/http-env";
import { controlStore } from "../../../platform/org-data";
import { logger } from "../../../platform/observability/log";
import { notAudited } from "../../audit";
import { OAuthErrorSchema, TokenForm, TokenSchema } from "../schemas";
import { keysForVerifying } from "../signing-keys";
import { issueToken, TokenError } from "../token";

const OrgParam = z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) });
const tags = ["SMART Backend Services"];
const oauthError = (description: string) => ({ description, content: { "application/json": { schema: OAuthErrorSchema } } });
const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export const TOKEN_PATH = "/auth/token";
export const JWKS_PATH = "/.well-known/jwks.json";

function tokenError(c: Context<HttpEnv>, e: TokenError) {
  if (e.status === 401) c.header("WWW-Authenticate", `Bearer error="${e.error}"`);
  return c.json({ error: e.error, error_description: e.description }, e.status, NO_STORE);
}

export const smartPublicRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "post",
      path: TOKEN_PATH,
      operationId: "smartToken",
      tags,
      summary: "Token endpoint: client_credentials with a private_key_jwt assertion (no other authentication)",
      audit: notAudited("a token grant: the FHIR interactions made with the token are audited by the store, naming the client"),
      security: [],
      request: { params: OrgParam, body: { required: true, content: { "application/x-www-form-urlencoded": { schema: TokenForm } } } },
      responses: {
        200: { description: "An access token (5 minutes)", content: { "application/json": { schema: TokenSchema } } },
        400: oauthError("invalid_request, unsupported_grant_type or invalid_scope"),
        401: oauthError("invalid_client: unknown client, bad signature, wrong aud, exp too far, replayed jti"),
      },
    }),
    async (c) => {
      const fhirBase = fhirBaseUrl(c);
      try {
        const form = await c.req.parseBody();
        const fields = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, typeof v === "string" ? v : undefined]));
        const token = await issueToken(controlStore(c.env), { orgId: c.req.param("orgId") ?? "", tokenUrl: `${fhirBase}${TOKEN_PATH}`, fhirBase, form: fields });
        return c.json(token, 200, NO_STORE);
      } catch (e) {
        if (e instanceof TokenError) return tokenError(c, e);
        logger(c.env).error("smart token", { request_id: c.get("requestId"), error_message: (e as Error).message });
        throw e;
      }
    },
    // A form that does not parse is an OAuth invalid_request, not the API's validation error.
    (result, c) => {
      if (!result.success) return tokenError(c as Context<HttpEnv>, new TokenError(400, "invalid_request", "The form needs grant_type, client_assertion_type, client_assertion and scope"));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: JWKS_PATH,
      operationId: "smartJwks",
      tags,
      summary: "The organization's public keys that verify its access tokens (no authentication)",
      security: [],
      request: { params: OrgParam },
      responses: { 200: { description: "JWK Set", content: { "application/json": { schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) } } } },
    }),
    async (c) => {
      const keys = await keysForVerifying(controlStore(c.env), c.req.param("orgId") ?? "", undefined);
      return c.json({ keys: (keys?.publicJwks.keys ?? []) as Record<string, unknown>[] }, 200, { "Cache-Control": "public, max-age=300" });
    },
  );
