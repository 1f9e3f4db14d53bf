// /api/v1/console/session: the web console's sign-in (an API key exchanged for an HttpOnly
// session cookie), who-am-I and sign-out. Sign-in is public (it carries the key in its body);
// the other two are authenticated by the cookie like any other route.
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, errorResponse, json, notFoundError, security } from "../../../platform/http/schemas";
import { audited, auditedInside } from "../../audit";
import { clearedSessionCookie, sessionCookie } from "../sessions/session-policy";
import { ConsoleSessionSchema, SignInBody } from "../sessions/schemas";
import { currentSession, signIn, signOut } from "../use-cases/console-session";

const tags = ["Console"];
const cookieSecurity = [{ consoleSession: [] }, ...security];

export const consoleSignInRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "post",
    operationId: "signInToConsole",
    path: "/",
    // Public (no principal yet): the use case records it once the key is known.
    audit: auditedInside("console_session.sign_in"),
    tags,
    summary: "Sign in to the console: exchange an organization id and API key for a session cookie",
    description: "Sets `cdis_session` (HttpOnly, Secure, SameSite=Strict). Writes authenticated by it must send the `X-CDIS-Console` header from the service's own origin (CSRF).",
    security: [],
    request: { body: { required: true, content: json(SignInBody) } },
    responses: {
      201: { description: "Signed in; the cookie is set", content: json(ConsoleSessionSchema) },
      400: errorResponse("Invalid request body"),
      401: errorResponse("Invalid or revoked API key"),
      403: errorResponse("The key belongs to another organization, or is a service key"),
      429: errorResponse("Rate limit exceeded"),
    },
  }),
  async (c) => {
    const { sessionId, maxAgeSeconds, view } = await signIn(c.env, c.get("contexts"), c.req.valid("json"));
    c.header("set-cookie", sessionCookie(sessionId, maxAgeSeconds));
    c.header("cache-control", "no-store");
    return c.json(view, 201);
  },
);

export const consoleSessionRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "getConsoleSession",
      path: "/",
      tags,
      summary: "The console session: organization, role, permissions and expiry (who am I)",
      security: cookieSecurity,
      responses: { 200: { description: "The session", content: json(ConsoleSessionSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      c.header("cache-control", "no-store");
      return c.json(currentSession(c.get("ctx"), c.get("principal"), c.get("consoleSession")?.entry), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "signOutOfConsole",
      path: "/",
      audit: audited("console_session.sign_out"),
      tags,
      summary: "Sign out: ends the session at once and clears the cookie",
      security: cookieSecurity,
      responses: { 204: { description: "Signed out" }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      await signOut(c.get("ctx"), c.get("consoleSession")?.idHash);
      c.header("set-cookie", clearedSessionCookie());
      return c.body(null, 204);
    },
  );
