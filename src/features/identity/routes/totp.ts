// /api/v1/users/me/totp: a signed-in user's own second factor (set up, confirm, new recovery
// codes, turn off), and /api/v1/users/{id}/totp: an administrator's reset of someone's. Only a
// user's console session has a second factor; an API key gets 403 USER_SESSION_REQUIRED.
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, errorResponse, json, notFoundError, security } from "../../../platform/http/schemas";
import { audited, byId } from "../../audit";
import { requirePermission } from "../../tenancy";
import { ConfirmTotpBody, FactorProofBody, presentUser, RecoveryCodesSchema, TotpEnrollmentSchema, TotpStatusSchema, UserIdParam, UserSchema } from "../schemas";
import { confirmTotpEnrollment, disableMyTotp, myTotp, renewRecoveryCodes, resetUserTotp, startTotpEnrollment } from "../totp/enrollment";

const tags = ["Users"];
const cookieSecurity = [...security, { consoleSession: [] }];
const wrongCode = { 422: errorResponse("The code is wrong or was already used (INVALID_TOTP_CODE)") } as const;

export const totpRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "getMyTotp",
      path: "/me/totp",
      tags,
      summary: "Whether the signed-in user's password sign-in asks for a TOTP code, and how many recovery codes are left",
      security: cookieSecurity,
      responses: { 200: { description: "The second factor's state", content: json(TotpStatusSchema) }, ...commonErrors },
    }),
    async (c) => c.json(await myTotp(c.get("ctx"), c.get("principal")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "startTotpEnrollment",
      path: "/me/totp",
      audit: audited("user.totp_enroll"),
      tags,
      summary: "Start setting up two-factor sign-in: a new secret for an authenticator app (confirm it with a first code)",
      security: cookieSecurity,
      responses: { 201: { description: "The secret, shown only here", content: json(TotpEnrollmentSchema) }, ...commonErrors, ...conflictError },
    }),
    async (c) => {
      c.header("cache-control", "no-store");
      return c.json(await startTotpEnrollment(c.get("ctx"), c.get("principal")), 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "confirmTotpEnrollment",
      path: "/me/totp/confirm",
      audit: audited("user.totp_enable"),
      tags,
      summary: "Confirm the set-up with the code the app shows: two-factor sign-in is on; answers ten recovery codes, shown only here",
      security: cookieSecurity,
      request: { body: { required: true, content: json(ConfirmTotpBody) } },
      responses: { 200: { description: "On; the recovery codes", content: json(RecoveryCodesSchema) }, ...commonErrors, ...conflictError, ...wrongCode },
    }),
    async (c) => {
      c.header("cache-control", "no-store");
      return c.json(await confirmTotpEnrollment(c.get("ctx"), c.get("principal"), c.req.valid("json").code), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "renewTotpRecoveryCodes",
      path: "/me/totp/recovery-codes",
      audit: audited("user.totp_recovery_codes"),
      tags,
      summary: "Replace the recovery codes (a current code or a recovery code proves it is you); the old ones stop working",
      security: cookieSecurity,
      request: { body: { required: true, content: json(FactorProofBody) } },
      responses: { 200: { description: "The new recovery codes, shown only here", content: json(RecoveryCodesSchema) }, ...commonErrors, ...conflictError, ...wrongCode },
    }),
    async (c) => {
      c.header("cache-control", "no-store");
      return c.json(await renewRecoveryCodes(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "disableMyTotp",
      path: "/me/totp/disable",
      audit: audited("user.totp_disable"),
      tags,
      summary: "Turn two-factor sign-in off (a current code or a recovery code proves it is you)",
      security: cookieSecurity,
      request: { body: { required: true, content: json(FactorProofBody) } },
      responses: { 204: { description: "Off" }, ...commonErrors, ...conflictError, ...wrongCode },
    }),
    async (c) => {
      await disableMyTotp(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "resetUserTotp",
      path: "/{id}/totp",
      audit: audited("user.totp_reset", byId),
      tags,
      summary: "Reset a user's two-factor sign-in (a lost phone): their password alone signs in until they set it up again",
      security: cookieSecurity,
      middleware: requirePermission("users:manage"),
      request: { params: UserIdParam },
      responses: { 200: { description: "The user", content: json(UserSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentUser(await resetUserTotp(c.get("ctx"), c.req.valid("param").id)), 200),
  );
