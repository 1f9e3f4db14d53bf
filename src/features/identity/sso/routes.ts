// Single sign-on's routes. Management (/api/v1/identity-provider, users:manage): the
// organization's OpenID Connect identity provider, read, replaced, removed; its client secret is
// never answered, only a hint. Public (/api/v1/auth/sso/{orgId}, mounted before authentication):
// whether the organization offers single sign-on (what the console's sign-in page asks), the start
// (302 to the IdP) and the IdP's callback (302 to the console, signed in). The start and the
// callback are browser navigations: a refusal is a 302 to the console's sign-in page with
// `?sso_error=<CODE>` (errors.ts), never an error body; a fault of the service itself (5xx) answers
// the usual error body.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, errorResponse, json, notFoundError, security } from "../../../platform/http/schemas";
import { controlStore } from "../../../platform/org-data";
import { audited, auditedInside, theOrganization } from "../../audit";
import { requirePermission, sessionCookie } from "../../tenancy";
import { deleteIdentityProvider, getIdentityProvider, IdentityProviderBody, IdentityProviderSchema, presentIdentityProvider, putIdentityProvider, readIdentityProvider, SsoInfoSchema } from "./config";
import { ssoPaths } from "./paths";
import { SSO_ERROR_CODES, SsoFailure } from "./errors";
import { BROWSER_COOKIE, completeSsoSignIn, STATE_TTL_MS, startSsoSignIn } from "./flow";

const admin = requirePermission("users:manage");
const tags = ["Users"];
const cookieSecurity = [...security, { consoleSession: [] }];

export const identityProviderRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "getIdentityProvider",
      path: "/",
      tags,
      summary: "The organization's OpenID Connect identity provider (the client secret only as a hint)",
      security: cookieSecurity,
      middleware: admin,
      responses: { 200: { description: "The identity provider, with the redirect URI to register at the IdP", content: json(IdentityProviderSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentIdentityProvider(await readIdentityProvider(c.get("ctx")), c.get("publicBaseUrl")), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      operationId: "putIdentityProvider",
      path: "/",
      audit: audited("identity_provider.update", theOrganization),
      tags,
      summary: "Configure the organization's OpenID Connect identity provider (creates or replaces it)",
      description:
        "The issuer must be https (plain http only for a host OUTBOUND_ALLOW lists). `client_secret` is required when none is stored, or when the issuer or client id changes; omitted otherwise, the stored one is kept. " +
        "Just-in-time provisioning needs allowed email domains and a role (mapped values or a default).",
      security: cookieSecurity,
      middleware: admin,
      request: { body: { required: true, content: json(IdentityProviderBody) } },
      responses: { 200: { description: "The identity provider as saved", content: json(IdentityProviderSchema) }, ...commonErrors },
    }),
    async (c) => {
      const saved = await putIdentityProvider(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      return c.json(presentIdentityProvider(saved, c.get("publicBaseUrl")), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "deleteIdentityProvider",
      path: "/",
      audit: audited("identity_provider.delete", theOrganization),
      tags,
      summary: "Remove the organization's identity provider: single sign-on stops; users and their bindings stay",
      security: cookieSecurity,
      middleware: admin,
      responses: { 204: { description: "Removed" }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      await deleteIdentityProvider(c.get("ctx"));
      return c.body(null, 204);
    },
  );

const OrgParam = z.object({ orgId: z.string().min(1).max(200).openapi({ param: { name: "orgId", in: "path" } }) });
const StartQuery = z.object({ return_to: z.string().max(2000).optional().openapi({ description: "The console path to land on once signed in (default `/`); anything but a path of this service is ignored" }) });
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
      summary: "Whether the organization offers single sign-on, its button's text and where it starts (public, no secrets)",
      description: "An organization that does not exist answers as one without single sign-on.",
      request: { params: OrgParam },
      responses: { 200: { description: "Single sign-on for the console's sign-in page", content: json(SsoInfoSchema) }, 400: badParams },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const idp = await getIdentityProvider(controlStore(c.env), orgId);
      c.header("cache-control", "no-store");
      if (!idp?.enabled) return c.json({ enabled: false, display_name: null, start_url: null }, 200);
      return c.json({ enabled: true, display_name: idp.displayName, start_url: `${c.get("publicBaseUrl")}${ssoPaths(orgId).start}` }, 200);
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
        const started = await startSsoSignIn(c.env, c.get("contexts"), { orgId, publicBase: c.get("publicBaseUrl"), browser: getCookie(c, BROWSER_COOKIE), returnTo: c.req.valid("query").return_to });
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
