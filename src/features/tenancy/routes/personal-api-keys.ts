// /api/v1/users/me/api-keys: a person's own API keys, for their scripts and tools. Each acts as
// its user (their current role, their access policy, AuditEvents naming them) and stops when the
// user is disabled; only the user, from their console session, lists, creates and revokes them.
// Administrators see them among the organization's keys (owner_user_id) and may revoke them there.
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { audited, byId, newId } from "../../audit";
import { ApiKeyIdParam, ApiKeySchema, CreatedApiKeySchema, CreatePersonalApiKeyBody, presentApiKey } from "../schemas";
import { createPersonalApiKey, listPersonalApiKeys, revokePersonalApiKey } from "../use-cases/api-keys";

const tags = ["API keys"];
const cookieSecurity = [...security, { consoleSession: [] }];

export const personalApiKeyRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "listPersonalApiKeys",
      path: "/",
      tags,
      summary: "List the signed-in user's personal API keys (never the secrets)",
      security: cookieSecurity,
      request: { query: PageQuery },
      responses: { 200: { description: "Page of keys", content: json(pageOf("api_keys", ApiKeySchema)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listPersonalApiKeys(c.get("ctx"), c.get("principal"), limit, offset);
      return c.json({ api_keys: rows.map(presentApiKey), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "createPersonalApiKey",
      path: "/",
      audit: audited("api_key.create", newId),
      tags,
      summary: "Create a personal API key: it acts as you, with your role as it is at each request",
      security: cookieSecurity,
      request: { body: { required: true, content: json(CreatePersonalApiKeyBody) } },
      responses: { 201: { description: "Created; the secret is in `key`, shown only here", content: json(CreatedApiKeySchema) }, ...commonErrors },
    }),
    async (c) => {
      const { row, secret } = await createPersonalApiKey(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      c.header("cache-control", "no-store");
      return c.json({ ...presentApiKey(row), key: secret }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "revokePersonalApiKey",
      path: "/{id}",
      audit: audited("api_key.revoke", byId),
      tags,
      summary: "Revoke one of your personal API keys",
      security: cookieSecurity,
      request: { params: ApiKeyIdParam },
      responses: { 200: { description: "The revoked key", content: json(ApiKeySchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentApiKey(await revokePersonalApiKey(c.get("ctx"), c.get("principal"), c.req.valid("param").id)), 200),
  );
