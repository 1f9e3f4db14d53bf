// /api/v1/users: administrators invite the organization's people, list them and change their
// role, name, fhirUser or status. The invitation token appears only in the invitation's answer.
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { audited, byId, newId } from "../../audit";
import { requirePermission } from "../../tenancy";
import { InvitationSchema, InviteUserBody, presentUser, UpdateUserBody, UserIdParam, UserSchema } from "../schemas";
import { inviteUser, listUsers, updateUser } from "../use-cases/users";

const admin = requirePermission("users:manage");
const tags = ["Users"];
const cookieSecurity = [...security, { consoleSession: [] }];

export const userRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "listUsers",
      path: "/",
      tags,
      summary: "List the organization's users (never a password or invitation)",
      security: cookieSecurity,
      middleware: admin,
      request: { query: PageQuery },
      responses: { 200: { description: "Page of users", content: json(pageOf("users", UserSchema)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listUsers(c.get("ctx"), limit, offset);
      return c.json({ users: rows.map(presentUser), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "inviteUser",
      path: "/invitations",
      audit: audited("user.invite", newId),
      tags,
      summary: "Invite a user: creates them invited and returns a one-time invitation token (valid 7 days)",
      security: cookieSecurity,
      middleware: admin,
      request: { body: { required: true, content: json(InviteUserBody) } },
      responses: { 201: { description: "Invited; the token is in `invitation.token`, shown only here", content: json(InvitationSchema) }, ...commonErrors, ...conflictError },
    }),
    async (c) => {
      const { row, token } = await inviteUser(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      c.header("cache-control", "no-store");
      return c.json({ ...presentUser(row), invitation: { token, expires_at: row.invitationExpiresAt ?? "" } }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      operationId: "updateUser",
      path: "/{id}",
      audit: audited("user.update", byId),
      tags,
      summary: "Change a user's role, name, fhirUser or status (disabled: their sessions stop at once)",
      security: cookieSecurity,
      middleware: admin,
      request: { params: UserIdParam, body: { required: true, content: json(UpdateUserBody) } },
      responses: { 200: { description: "The user", content: json(UserSchema) }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => c.json(presentUser(await updateUser(c.get("ctx"), c.req.valid("param").id, c.req.valid("json"))), 200),
  );
