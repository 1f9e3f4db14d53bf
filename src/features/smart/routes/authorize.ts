// The authorization endpoint (SMART App Launch 2.x, RFC 6749 §4.1): GET /auth/authorize checks
// the app's request and shows the signed-in console user a consent screen; the screen's patient
// search (GET) and its decision (POST, CSRF-checked) are /auth/authorize/consent. A person sees an
// HTML page; the app gets a redirect to its registered redirect_uri, never to anything else.
// Mounted before authentication: the console session cookie is read here (authorize/session.ts).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { fhirBaseUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import type { HttpEnv } from "../../../platform/http/http-env";
import { controlStore } from "../../../platform/org-data";
import { auditedInside } from "../../audit";
import { SESSION_COOKIE } from "../../tenancy";
import { type FlowDeps, type FlowOutcome, decide, showConsent, startAuthorization } from "../authorize/flow";
import { newNonce, pageHeaders, renderConsentPage, renderErrorPage } from "../consent-page";
import { PATHS } from "../paths";

const OrgParam = z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) });
const tags = ["SMART App Launch"];
const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const AuthorizeQuery = z
  .object({
    response_type: z.string().optional().openapi({ example: "code" }),
    client_id: z.string().optional(),
    redirect_uri: z.string().optional().openapi({ description: "Exactly one of the client's registered redirect URIs" }),
    scope: z.string().optional().openapi({ example: "launch/patient openid fhirUser offline_access patient/Observation.rs" }),
    state: z.string().optional(),
    aud: z.string().optional().openapi({ description: "This FHIR endpoint's base URL" }),
    code_challenge: z.string().optional(),
    code_challenge_method: z.string().optional().openapi({ example: "S256" }),
    launch: z.string().optional().openapi({ description: "EHR launch: the value the app received with iss" }),
    nonce: z.string().optional(),
  })
  .passthrough();

function deps(c: Context<HttpEnv>): FlowDeps {
  const fhirBase = fhirBaseUrl(c);
  const base = c.get("publicBaseUrl");
  return {
    env: c.env,
    control: controlStore(c.env),
    contexts: c.get("contexts"),
    orgId: c.req.param("orgId") ?? "",
    fhirBase,
    consentUrl: `${fhirBase}${PATHS.consent}`,
    // The console's page (its sign-in when signed out) takes the person back here afterwards.
    signInUrl: (returnTo) => `${base}/?return_to=${encodeURIComponent(returnTo)}`,
    sessionId: getCookie(c, SESSION_COOKIE) || undefined,
  };
}

function answer(c: Context<HttpEnv>, outcome: FlowOutcome) {
  if (outcome.kind === "redirect") return c.body(null, 302, { Location: outcome.location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" });
  const nonce = newNonce();
  if (outcome.kind === "page") return c.body(renderErrorPage(outcome.title, outcome.message, nonce), outcome.status, pageHeaders(nonce));
  // The consent form's POST redirects to the app: its redirect_uri is a form target too (CSP form-action).
  return c.body(renderConsentPage(outcome.view, nonce), 200, pageHeaders(nonce, [outcome.redirectUri]));
}

/** Repeated names kept (the checks refuse them). */
function paramsOf(c: Context<HttpEnv>): Record<string, string[]> {
  return c.req.queries() as Record<string, string[]>;
}

/** The browser's Origin (or Sec-Fetch-Site) says the form was sent from this service's pages, or says nothing. */
function sameOrigin(c: Context<HttpEnv>): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return false;
  const origin = c.req.header("origin");
  if (!origin || origin === "null") return origin !== "null";
  const own = [new URL(c.req.url).origin, new URL(c.get("publicBaseUrl")).origin];
  return own.includes(origin);
}

export const authorizeRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: PATHS.authorize,
      operationId: "smartAuthorize",
      tags,
      summary: "Authorization endpoint: the console user approves or denies the app (consent screen)",
      description:
        "response_type=code with PKCE S256 (plain is refused), aud equal to this FHIR base, state, and launch for an EHR launch. " +
        "An unknown client or an unregistered redirect_uri is an error page (never a redirect). Without a console user session: a redirect to the console's sign-in, which returns here.",
      security: [],
      request: { params: OrgParam, query: AuthorizeQuery },
      responses: {
        200: html("The consent screen"),
        302: { description: "To the app's redirect_uri with error and state, or to the console's sign-in" },
        400: html("The request cannot be returned to the app (unknown client, unregistered redirect_uri)"),
        403: html("Signed in with an API key or to another organization"),
      },
    }),
    async (c) => {
      const url = new URL(c.req.url);
      return answer(c, await startAuthorization(deps(c), paramsOf(c), `${url.pathname}${url.search}`)) as never;
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: PATHS.consent,
      operationId: "smartConsentSearch",
      tags,
      summary: "The consent screen again, with the patient search's results (standalone launch/patient)",
      security: [],
      request: { params: OrgParam, query: z.object({ request: z.string().optional(), q: z.string().optional() }) },
      responses: { 200: html("The consent screen"), 400: html("The request has ended"), 403: html("Another session's request") },
    }),
    async (c) => {
      const { request, q } = c.req.valid("query");
      return answer(c, await showConsent(deps(c), request, q ?? "")) as never;
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: PATHS.consent,
      operationId: "smartConsentDecision",
      tags,
      summary: "The consent screen's decision: Approve redirects to the app with a code, Deny with error=access_denied",
      audit: auditedInside("smart.authorize"),
      security: [],
      request: {
        params: OrgParam,
        body: {
          required: true,
          content: { "application/x-www-form-urlencoded": { schema: z.object({ request: z.string(), csrf: z.string(), decision: z.enum(["approve", "deny"]), patient: z.string().optional() }) } },
        },
      },
      responses: {
        200: html("The consent screen again (a patient is still to be picked)"),
        302: { description: "To the app's redirect_uri: code and state, or error=access_denied" },
        400: html("The request has ended or was already decided"),
        403: html("Cross-site, another session's request, or a stale form"),
      },
    }),
    async (c) => {
      const body = await c.req.parseBody();
      const form = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === "string" ? v : undefined]));
      return answer(c, await decide(deps(c), form, sameOrigin(c))) as never;
    },
    (result, c) => {
      if (!result.success) {
        const nonce = newNonce();
        return c.body(renderErrorPage("Invalid form", "The consent form was incomplete. Start again from the app.", nonce), 400, pageHeaders(nonce));
      }
    },
  );
