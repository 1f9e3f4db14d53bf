// The SMART endpoints a client reaches without an access token: the token endpoint (the client
// authenticates with its secret, its signed assertion, or as a public client with PKCE),
// introspection and revocation, the org's JWK Set (what verifies its tokens), and discovery (the
// SMART configuration, OpenID Connect's, the style the app may use). Mounted before
// authentication. Their errors are RFC 6749's JSON, never the API's error body. Every token
// request, every revocation and every refused introspection is audited in the org's trail.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { fhirBaseUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import type { HttpEnv } from "../../../platform/http/http-env";
import { controlStore } from "../../../platform/org-data";
import { outboundFetch } from "../../../platform/outbound/fetch";
import type { OrgContext } from "../../../platform/org-context";
import type { Principal } from "../../../platform/principal";
import { logger } from "../../../platform/observability/log";
import { auditedInside, type ManagementActionInput, recordManagementAction } from "../../audit";
import { TokenError } from "../errors";
import { type Caller, callerOf, introspect, revoke, type TokenEndpointRequest } from "../introspect";
import { IntrospectionSchema, OAuthErrorSchema, TokenForm, TokenOpForm, TokenSchema } from "../schemas";
import { keysForVerifying } from "../signing-keys";
import { openidConfiguration, SMART_STYLE, smartConfiguration } from "../discovery";
import { issueToken } from "../token";
import { PATHS } from "../paths";

const OrgParam = z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) });
const tags = ["SMART App Launch"];
const oauthError = (description: string) => ({ description, content: { "application/json": { schema: OAuthErrorSchema } } });
const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };
const FORM = "application/x-www-form-urlencoded";

function tokenError(c: Context<HttpEnv>, e: TokenError) {
  if (e.status === 401) c.header("WWW-Authenticate", e.scheme === "Basic" ? `Basic realm="${fhirBaseUrl(c)}", charset="UTF-8"` : `Bearer error="${e.error}"`);
  return c.json({ error: e.error, error_description: e.description }, e.status, NO_STORE);
}

/** The form's fields; a field sent twice is refused (RFC 6749 §3.1). */
async function formOf(c: Context<HttpEnv>): Promise<Record<string, string | undefined>> {
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) throw new TokenError(400, "invalid_request", `The parameter ${k} is repeated`);
    out[k] = typeof v === "string" ? v : undefined;
  }
  return out;
}

function endpointRequest(c: Context<HttpEnv>, form: Record<string, string | undefined>, path: string): TokenEndpointRequest {
  const fhirBase = fhirBaseUrl(c);
  return {
    orgId: c.req.param("orgId") ?? "",
    fhirBase,
    // A client assertion's aud: the token URL (as SMART says), or the endpoint it is sent to.
    audiences: [...new Set([`${fhirBase}${PATHS.token}`, `${fhirBase}${path}`])],
    form,
    authorization: c.req.header("authorization"),
    fetchKeys: outboundFetch(c.env),
    env: c.env,
  };
}

const clientPrincipal = (orgId: string, clientId: string | undefined): Principal => {
  const id = clientId ?? "unidentified";
  return { orgId, keyId: `client:${id}`, keyName: id, role: "service", scopes: [], client: { id, name: id } };
};

/** Records the outcome in the org's trail; an org that does not exist has none. */
async function audit(c: Context<HttpEnv>, principal: Principal, input: ManagementActionInput): Promise<void> {
  let ctx: OrgContext;
  try {
    ctx = await c.get("contexts").forOrg(principal.orgId);
  } catch {
    return;
  }
  await recordManagementAction(ctx, principal, input);
}

/** A form the schema refuses: invalid_request, audited as the endpoint's refusals are. */
async function refuseForm(c: Context<HttpEnv>, action: "smart.token" | "smart.introspect" | "smart.revoke", description: string) {
  const e = new TokenError(400, "invalid_request", description);
  await audit(c, clientPrincipal(c.req.param("orgId") ?? "", undefined), { action, outcome: "4", reason: refusal(e) });
  return tokenError(c, e);
}

const refusal = (e: TokenError) => `${e.error}: ${e.description}`;

/**
 * Introspection and revocation alike: the form, the request, the calling client (or management
 * key; `allowPublic`: a public client naming itself), then `run`. A refusal is audited under
 * `action`, naming the client when known, and answered as RFC 6749 says.
 */
async function asCaller<R>(
  c: Context<HttpEnv>,
  action: "smart.introspect" | "smart.revoke",
  path: string,
  allowPublic: boolean,
  run: (req: TokenEndpointRequest, caller: Caller) => Promise<R>,
): Promise<R | ReturnType<typeof tokenError>> {
  let caller: Caller | undefined;
  let form: Record<string, string | undefined> = {};
  try {
    form = await formOf(c);
    const req = endpointRequest(c, form, path);
    caller = await callerOf(controlStore(c.env), req, allowPublic);
    return await run(req, caller);
  } catch (e) {
    if (!(e instanceof TokenError)) throw e;
    await audit(c, callerPrincipal(c.req.param("orgId") ?? "", caller, e.clientId ?? form.client_id), { action, outcome: "4", reason: refusal(e) });
    return tokenError(c, e);
  }
}
const callerPrincipal = (orgId: string, caller: Caller | undefined, clientId?: string): Principal =>
  caller?.kind === "key" ? { orgId, keyId: caller.keyId, keyName: caller.keyId, role: "admin", scopes: [] } : clientPrincipal(orgId, caller?.clientId ?? clientId);

export const smartPublicRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "post",
      path: PATHS.token,
      operationId: "smartToken",
      tags,
      summary: "Token endpoint: authorization_code (PKCE), refresh_token (rotated) and client_credentials",
      description:
        "Client authentication: client_secret_basic, client_secret_post, private_key_jwt, or none for a public client (client_id). " +
        "A replayed authorization code fails invalid_grant and revokes what it issued; a reused refresh token revokes its grant.",
      audit: auditedInside("smart.token"),
      security: [],
      request: { params: OrgParam, body: { required: true, content: { [FORM]: { schema: TokenForm } } } },
      responses: {
        200: { description: "An access token (5 minutes), with the launch context, a refresh token and an id_token as granted", content: { "application/json": { schema: TokenSchema } } },
        400: oauthError("invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_scope"),
        401: oauthError("invalid_client (WWW-Authenticate: Basic when the client used HTTP Basic)"),
      },
    }),
    async (c) => {
      const orgId = c.req.param("orgId") ?? "";
      let form: Record<string, string | undefined> = {};
      try {
        form = await formOf(c);
        const req = endpointRequest(c, form, PATHS.token);
        const issued = await issueToken(controlStore(c.env), { ...req, tokenUrl: `${req.fhirBase}${PATHS.token}`, styleUrl: `${req.fhirBase}${PATHS.style}` });
        await audit(c, clientPrincipal(orgId, issued.clientId), {
          action: "smart.token",
          outcome: "0",
          entityId: issued.grantId ?? issued.clientId,
          detail: { grant_type: form.grant_type ?? "", scope: issued.response.scope, ...(issued.userId ? { user: issued.userId } : {}) },
        });
        return c.json(issued.response, 200, NO_STORE);
      } catch (e) {
        if (e instanceof TokenError) {
          await audit(c, clientPrincipal(orgId, e.clientId ?? form.client_id), { action: "smart.token", outcome: "4", reason: refusal(e), detail: { grant_type: form.grant_type ?? "" } });
          return tokenError(c, e);
        }
        logger(c.env).error("smart token", { request_id: c.get("requestId"), error_message: (e as Error).message });
        throw e;
      }
    },
    // A form that does not parse is an OAuth invalid_request (audited), not the API's validation error.
    (result, c) => (result.success ? undefined : refuseForm(c as Context<HttpEnv>, "smart.token", "The form needs grant_type (each parameter once)")),
  )
  .openapi(
    createRoute({
      method: "post",
      path: PATHS.introspect,
      operationId: "smartIntrospect",
      tags,
      summary: "Token introspection (RFC 7662): a confidential client (its own tokens) or a management API key (clients:manage)",
      audit: auditedInside("smart.introspect"),
      security: [],
      request: { params: OrgParam, body: { required: true, content: { [FORM]: { schema: TokenOpForm } } } },
      responses: {
        200: { description: "active, and what the token is when active; `active: false` for anything foreign, expired, revoked or used", content: { "application/json": { schema: IntrospectionSchema } } },
        400: oauthError("invalid_request"),
        401: oauthError("invalid_client"),
      },
    }),
    // Only refusals are audited: a resource server introspects on every request it serves.
    (c) => asCaller(c, "smart.introspect", PATHS.introspect, false, async (req, caller) => c.json(await introspect(controlStore(c.env), req, caller), 200, NO_STORE)),
    (result, c) => (result.success ? undefined : refuseForm(c as Context<HttpEnv>, "smart.introspect", "The form needs token (each parameter once)")),
  )
  .openapi(
    createRoute({
      method: "post",
      path: PATHS.revoke,
      operationId: "smartRevoke",
      tags,
      summary: "Token revocation (RFC 7009): a refresh token, or an access token a user authorized, revokes its grant",
      description:
        "The client authenticates as at the token endpoint (a public client names itself with client_id), or a management API key revokes any of the org's tokens. " +
        "The grant's refresh tokens stop at once; its access tokens within 15 s on every isolate (at once on this one), and expire within 5 minutes anyway. " +
        "200 whatever the token (a foreign, expired or unknown one changes nothing); a backend service's access token answers unsupported_token_type.",
      audit: auditedInside("smart.revoke"),
      security: [],
      request: { params: OrgParam, body: { required: true, content: { [FORM]: { schema: TokenOpForm } } } },
      responses: {
        200: { description: "Revoked (or nothing to revoke)" },
        400: oauthError("invalid_request or unsupported_token_type"),
        401: oauthError("invalid_client"),
      },
    }),
    (c) =>
      asCaller(c, "smart.revoke", PATHS.revoke, true, async (req, caller) => {
        const { grantId } = await revoke(controlStore(c.env), req, caller);
        await audit(c, callerPrincipal(req.orgId, caller), { action: "smart.revoke", outcome: "0", ...(grantId ? { entityId: grantId } : {}), detail: { revoked: grantId ? "grant" : "nothing" } });
        return c.body(null, 200, NO_STORE);
      }),
    (result, c) => (result.success ? undefined : refuseForm(c as Context<HttpEnv>, "smart.revoke", "The form needs token (each parameter once)")),
  )
  .openapi(
    createRoute({
      method: "get",
      path: PATHS.jwks,
      operationId: "smartJwks",
      tags,
      summary: "The organization's public keys that verify its access tokens and id_tokens (no authentication)",
      security: [],
      request: { params: OrgParam },
      responses: { 200: { description: "JWK Set", content: { "application/json": { schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) } } } },
    }),
    async (c) => {
      const keys = await keysForVerifying(controlStore(c.env), c.req.param("orgId") ?? "", undefined);
      return c.json({ keys: (keys?.publicJwks.keys ?? []) as Record<string, unknown>[] }, 200, { "Cache-Control": "public, max-age=300" });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/.well-known/smart-configuration",
      operationId: "smartConfiguration",
      tags: ["FHIR R4"],
      summary: "SMART configuration: how to authorize and authenticate (no authentication)",
      security: [],
      request: { params: OrgParam },
      responses: { 200: { description: "SMART configuration", content: { "application/json": { schema: z.object({ capabilities: z.array(z.string()) }).passthrough() } } } },
    }),
    (c) => c.json(smartConfiguration(fhirBaseUrl(c)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/.well-known/openid-configuration",
      operationId: "openidConfiguration",
      tags,
      summary: "OpenID Connect discovery for the id_tokens this FHIR endpoint issues (issuer: the FHIR base)",
      security: [],
      request: { params: OrgParam },
      responses: { 200: { description: "OpenID Provider metadata", content: { "application/json": { schema: z.object({ issuer: z.string() }).passthrough() } } } },
    }),
    (c) => c.json(openidConfiguration(fhirBaseUrl(c)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: PATHS.style,
      operationId: "smartStyle",
      tags,
      summary: "The styles a launched app may match (smart_style_url)",
      security: [],
      request: { params: OrgParam },
      responses: { 200: { description: "SMART style", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } } },
    }),
    (c) => c.json(SMART_STYLE, 200, { "Cache-Control": "public, max-age=3600" }),
  );
