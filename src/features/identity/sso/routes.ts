// Single sign-on's routes. Management (/api/v1/identity-providers, users:manage): the
// organization's OpenID Connect identity providers, listed, added, read, replaced, removed; a
// client secret is never answered, only a hint. Sign-out (/api/v1/users/me/sign-out): the console
// session ended, and the IdP's too where single sign-on opened it. Public (/api/v1/auth/sso/{orgId},
// mounted before authentication): the organization's single sign-on options (what the console's
// sign-in page asks), the start (302 to the IdP) and the IdP's callback (302 to the console, signed in). The start and the
// callback are browser navigations: a refusal is a 302 to the console's sign-in page with
// `?sso_error=<CODE>` (errors.ts), never an error body; a fault of the service itself (5xx) answers
// the usual error body.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, errorResponse, json, notFoundError, security } from "../../../platform/http/schemas";
import { controlStore } from "../../../platform/org-data";
import { audited, auditedInside, byId, newId } from "../../audit";
import { clearedSessionCookie, requirePermission, sessionCookie } from "../../tenancy";
import {
  createIdentityProvider,
  deleteIdentityProvider,
  IdentityProviderBody,
  IdentityProviderIdParam,
  IdentityProviderListSchema,
  IdentityProviderSchema,
  listIdentityProviders,
  MAX_IDENTITY_PROVIDERS,
  presentIdentityProvider,
  readIdentityProvider,
  replaceIdentityProvider,
  SsoInfoSchema,
  startUrlOf,
} from "./config";
import { signOutWithIdp } from "./logout";
import { ssoPaths } from "./paths";
import { SSO_ERROR_CODES, SsoFailure } from "./errors";
import { BROWSER_COOKIE, completeSsoSignIn, STATE_TTL_MS, startSsoSignIn } from "./flow";

const admin = requirePermission("users:manage");
const tags = ["Users"];
const cookieSecurity = [...security, { consoleSession: [] }];

const IdpBody = { body: { required: true, content: json(IdentityProviderBody) } } as const;
const IDP_BODY_RULES =
  "The issuer must be https (plain http only for a host OUTBOUND_ALLOW lists). Just-in-time provisioning needs allowed email domains and a role (mapped values or a default).";

export const identityProviderRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "listIdentityProviders",
      path: "/",
      tags,
      summary: "The organization's OpenID Connect identity providers, oldest first (client secrets only as hints)",
      security: cookieSecurity,
      middleware: admin,
      responses: { 200: { description: "The identity providers, each with the redirect URIs to register at its IdP", content: json(IdentityProviderListSchema) }, ...commonErrors },
    }),
    async (c) => {
      const rows = await listIdentityProviders(c.get("ctx").control, c.get("ctx").orgId);
      return c.json({ identity_providers: rows.map((r) => presentIdentityProvider(r, c.get("publicBaseUrl"))), total_count: rows.length }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "createIdentityProvider",
      path: "/",
      audit: audited("identity_provider.create", newId),
      tags,
      summary: "Add an OpenID Connect identity provider to the organization (a button of its sign-in page)",
      description: `${IDP_BODY_RULES} \`client_secret\` is required. At most ${MAX_IDENTITY_PROVIDERS} per organization (409 \`IDENTITY_PROVIDER_LIMIT\`).`,
      security: cookieSecurity,
      middleware: admin,
      request: IdpBody,
      responses: { 201: { description: "The identity provider as saved", content: json(IdentityProviderSchema) }, ...commonErrors, ...conflictError },
    }),
    async (c) => {
      const saved = await createIdentityProvider(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      return c.json(presentIdentityProvider(saved, c.get("publicBaseUrl")), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      operationId: "getIdentityProvider",
      path: "/{id}",
      tags,
      summary: "One of the organization's identity providers (the client secret only as a hint)",
      security: cookieSecurity,
      middleware: admin,
      request: { params: IdentityProviderIdParam },
      responses: { 200: { description: "The identity provider", content: json(IdentityProviderSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentIdentityProvider(await readIdentityProvider(c.get("ctx"), c.req.valid("param").id), c.get("publicBaseUrl")), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      operationId: "replaceIdentityProvider",
      path: "/{id}",
      audit: audited("identity_provider.update", byId),
      tags,
      summary: "Replace one of the organization's identity providers",
      description: `${IDP_BODY_RULES} \`client_secret\` is required when the issuer or client id changes; omitted otherwise, the stored one is kept. Sign-ins started before a change of issuer or client id fail (\`STATE_INVALID\`).`,
      security: cookieSecurity,
      middleware: admin,
      request: { params: IdentityProviderIdParam, ...IdpBody },
      responses: { 200: { description: "The identity provider as saved", content: json(IdentityProviderSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const saved = await replaceIdentityProvider(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json"));
      return c.json(presentIdentityProvider(saved, c.get("publicBaseUrl")), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "deleteIdentityProvider",
      path: "/{id}",
      audit: audited("identity_provider.delete", byId),
      tags,
      summary: "Remove one of the organization's identity providers: its button and sign-ins stop; users and their bindings stay",
      security: cookieSecurity,
      middleware: admin,
      request: { params: IdentityProviderIdParam },
      responses: { 204: { description: "Removed" }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      await deleteIdentityProvider(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  );

const SignOutSchema = z
  .object({ end_session_url: z.string().nullable().openapi({ description: "Where to send the browser to end the IdP's session too (null: nothing to end there)" }) })
  .openapi("SignOut");

/** Signing out of a user's console session, at the IdP too where single sign-on opened it (sso/logout.ts). */
export const ssoSignOutRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "post",
    operationId: "signOutEverywhere",
    path: "/me/sign-out",
    audit: audited("console_session.sign_out"),
    tags: ["Console"],
    summary: "Sign out of the console session, and of the identity provider that opened it (OpenID Connect RP-Initiated Logout)",
    description:
      "Ends the console session at once and clears the cookie, as `DELETE /api/v1/console/session` does. When single sign-on opened the session and the IdP offers an `end_session_endpoint`, `end_session_url` is where the console sends the browser next: the IdP's end-session endpoint with `id_token_hint`, `client_id` and `post_logout_redirect_uri` (the identity provider's `post_logout_redirect_uri`, which must be registered at the IdP). Otherwise null.",
    security: [{ consoleSession: [] }],
    responses: { 200: { description: "Signed out", content: json(SignOutSchema) }, ...commonErrors, ...notFoundError },
  }),
  async (c) => {
    const url = await signOutWithIdp(c.get("ctx"), c.get("consoleSession")?.idHash, c.get("publicBaseUrl"));
    c.header("set-cookie", clearedSessionCookie());
    c.header("cache-control", "no-store");
    return c.json({ end_session_url: url }, 200);
  },
);

const OrgParam = z.object({ orgId: z.string().min(1).max(200).openapi({ param: { name: "orgId", in: "path" } }) });
const StartQuery = z.object({
  return_to: z.string().max(2000).optional().openapi({ description: "The console path to land on once signed in (default `/`); anything but a path of this service is ignored" }),
  idp: z.string().min(1).max(64).optional().openapi({ description: "Which of the organization's identity providers (its id); omitted, the only enabled one" }),
});
const CallbackQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  iss: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});
const redirectResponse = (description: string) => ({ description, headers: z.object({ location: z.string() }) });
/** Parameters that are not even of the right shape (an organization id over 200 characters): the usual error body. */
const badParams = errorResponse("Malformed path or query parameters (VALIDATION_FAILED)");
const ERROR_LIST = SSO_ERROR_CODES.map((c) => `\`${c}\``).join(", ");

/** The console's sign-in page, told why single sign-on failed. */
const signInPage = (c: Context<HttpEnv>, failure: SsoFailure) => `${c.get("publicBaseUrl")}/?sso_error=${failure.code}`;

/** The browser binding: Lax, because the IdP's redirect back is a cross-site navigation, which a Strict cookie would miss. */
const browserCookie = (orgId: string, value: string) =>
  `${BROWSER_COOKIE}=${value}; Path=${ssoPaths(orgId).base}/; Max-Age=${STATE_TTL_MS / 1000}; HttpOnly; Secure; SameSite=Lax`;

function redirect(c: Context<HttpEnv>, location: string) {
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "no-referrer");
  return c.redirect(location, 302);
}

export const ssoPublicRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "getSsoInfo",
      path: "/{orgId}",
      tags: ["Console"],
      security: [],
      summary: "The organization's single sign-on options: each enabled identity provider's button text and where it starts (public, no secrets)",
      description: "An organization that does not exist answers as one without single sign-on (`enabled: false`, no identity providers).",
      request: { params: OrgParam },
      responses: { 200: { description: "Single sign-on for the console's sign-in page", content: json(SsoInfoSchema) }, 400: badParams },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const enabled = (await listIdentityProviders(controlStore(c.env), orgId)).filter((p) => p.enabled);
      c.header("cache-control", "no-store");
      const options = enabled.map((p) => ({ id: p.id, display_name: p.displayName, start_url: startUrlOf(p, c.get("publicBaseUrl")) }));
      return c.json({ enabled: options.length > 0, identity_providers: options }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      operationId: "startSsoSignIn",
      path: "/{orgId}/start",
      tags: ["Console"],
      security: [],
      summary: "Start single sign-on: 302 to the organization's IdP (authorization code, PKCE S256, state, nonce)",
      description: `Sets the \`${BROWSER_COOKIE}\` cookie binding the sign-in to this browser (10 minutes). Refused: 302 to \`/?sso_error=<CODE>\` (${ERROR_LIST}).`,
      request: { params: OrgParam, query: StartQuery },
      responses: { 302: redirectResponse("To the IdP's authorization endpoint, or to the console's sign-in page with `sso_error`"), 400: badParams },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      try {
        const started = await startSsoSignIn(c.env, c.get("contexts"), { orgId, publicBase: c.get("publicBaseUrl"), browser: getCookie(c, BROWSER_COOKIE), returnTo: c.req.valid("query").return_to, idpId: c.req.valid("query").idp });
        c.header("set-cookie", browserCookie(orgId, started.browser));
        return redirect(c, started.location);
      } catch (e) {
        if (e instanceof SsoFailure) return redirect(c, signInPage(c, e));
        throw e;
      }
    },
  )
  .openapi(
    createRoute({
      method: "get",
      operationId: "completeSsoSignIn",
      path: "/{orgId}/callback",
      audit: auditedInside("console_session.sign_in"),
      tags: ["Console"],
      security: [],
      summary: "The IdP's redirect back: signs the user in (sets the session cookie) and 302 to the console",
      description:
        "The redirect URI to register at the IdP. The single-use `state` (this organization, this browser's `cdis_sso` cookie, 10 minutes) authenticates it; the code is exchanged and the ID token validated (issuer, audience, expiry, nonce, signature). " +
        `Signed in: \`cdis_session\` is set as password sign-in sets it, and 302 to the console. Refused (audited, nothing granted): 302 to \`/?sso_error=<CODE>\` (${ERROR_LIST}).`,
      request: { params: OrgParam, query: CallbackQuery },
      responses: { 302: redirectResponse("To the console, signed in; or to its sign-in page with `sso_error`"), 400: badParams },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      try {
        const done = await completeSsoSignIn(c.env, c.get("contexts"), { orgId, publicBase: c.get("publicBaseUrl"), query: new URL(c.req.url).searchParams, browser: getCookie(c, BROWSER_COOKIE) });
        c.header("set-cookie", sessionCookie(done.sessionId, done.maxAgeSeconds));
        return redirect(c, done.location);
      } catch (e) {
        if (e instanceof SsoFailure) return redirect(c, signInPage(c, e));
        throw e;
      }
    },
  );
