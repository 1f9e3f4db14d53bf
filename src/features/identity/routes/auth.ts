// /api/v1/auth: the public half of identity. Accepting an invitation (its token and a new
// password) and password sign-in to the console (with its TOTP second step when the user has one),
// which sets the same session cookie as the key sign-in (features/tenancy/sessions). Both record their own AuditEvents once the user is known.
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { errorResponse, json } from "../../../platform/http/schemas";
import { auditedInside } from "../../audit";
import { ConsoleSessionSchema, sessionCookie } from "../../tenancy";
import { AcceptInvitationBody, PasswordSignInBody, presentUser, SecondFactorRequiredSchema, SecondFactorSignInBody, UserSchema } from "../schemas";
import { signInWithSecondFactor } from "../totp/sign-in";
import { acceptInvitation } from "../use-cases/invitations";
import { type SignedIn, signInWithPassword } from "../use-cases/sign-in";

const tags = ["Users"];

export const authRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "post",
      operationId: "acceptInvitation",
      path: "/invitations/accept",
      audit: auditedInside("user.accept_invitation"),
      tags,
      summary: "Accept an invitation: its token and a password (at least 12 characters), optionally the name to go by, make the user active",
      security: [],
      request: { body: { required: true, content: json(AcceptInvitationBody) } },
      responses: {
        200: { description: "The user, now active", content: json(UserSchema) },
        400: errorResponse("Invalid body, or the token is unknown, used or expired (INVALID_INVITATION)"),
      },
    }),
    async (c) => c.json(presentUser(await acceptInvitation(c.env, c.get("contexts"), c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "signInWithPassword",
      path: "/sign-in",
      audit: auditedInside("console_session.sign_in"),
      tags: ["Console"],
      summary: "Sign in to the console with an organization id, email and password: sets the session cookie",
      description:
        "Sets `cdis_session` as `POST /api/v1/console/session` does. Unknown email, wrong password, disabled or not yet accepted: the same 401. " +
        "After 5 consecutive failures the account is locked (1 min, doubling with each further failure, at most 1 h): 401 with `Retry-After`. " +
        "A user with two-factor sign-in gets 200 with a `challenge` instead of the session: send it to `POST /api/v1/auth/sign-in/totp` with the code.",
      security: [],
      request: { body: { required: true, content: json(PasswordSignInBody) } },
      responses: {
        200: { description: "The password is right and the user has a second factor: no session yet, the challenge for the code", content: json(SecondFactorRequiredSchema) },
        201: { description: "Signed in; the cookie is set", content: json(ConsoleSessionSchema) },
        400: errorResponse("Invalid request body"),
        401: errorResponse("Invalid email or password, or the account is locked (Retry-After)"),
      },
    }),
    async (c) => {
      const result = await signInWithPassword(c.env, c.get("contexts"), c.req.valid("json"));
      c.header("cache-control", "no-store");
      if ("challenge" in result) return c.json(result, 200);
      return signedIn(c, result);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "signInWithTotp",
      path: "/sign-in/totp",
      audit: auditedInside("console_session.sign_in"),
      tags: ["Console"],
      summary: "Complete a password sign-in with the TOTP code from the app (or a recovery code): sets the session cookie",
      description:
        "The `challenge` is the one `POST /api/v1/auth/sign-in` answered (five minutes, single use). A wrong code is a failed sign-in: after 5 consecutive failures the account is locked as for wrong passwords.",
      security: [],
      request: { body: { required: true, content: json(SecondFactorSignInBody) } },
      responses: {
        201: { description: "Signed in; the cookie is set", content: json(ConsoleSessionSchema) },
        400: errorResponse("Invalid request body (code or recovery_code, exactly one)"),
        401: errorResponse("Wrong or reused code (INVALID_TOTP_CODE), an expired or spent challenge (SIGN_IN_EXPIRED), or the account is locked (Retry-After)"),
      },
    }),
    async (c) => signedIn(c, await signInWithSecondFactor(c.env, c.get("contexts"), c.req.valid("json"))),
  );

/** The session cookie and the session's view: the last step of either sign-in route. */
function signedIn(c: Context<HttpEnv>, { sessionId, maxAgeSeconds, view }: SignedIn) {
  c.header("set-cookie", sessionCookie(sessionId, maxAgeSeconds));
  c.header("cache-control", "no-store");
  return c.json(view, 201);
}
