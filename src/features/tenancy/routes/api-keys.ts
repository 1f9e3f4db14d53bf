// /api/api-keys: administrators create, list, inspect and revoke their org's keys.
// The secret appears only in the creation response.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { audited, byId, newId } from "../../audit";
import { requirePermission } from "../middleware/auth";
import { ApiKeyIdParam, ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema, presentApiKey } from "../schemas";
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from "../use-cases/api-keys";
import type { HttpEnv } from "../../../platform/http/http-env";

const admin = requirePermission("keys:manage");
const tags = ["API keys"];

export const apiKeyRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags,
      summary: "Create an API key",
      audit: audited("api_key.create", newId),
      security,
      middleware: admin,
      request: { body: { required: true, content: json(CreateApiKeyBody) } },
      responses: { 201: { description: "Created; the secret is in `key`", content: json(CreatedApiKeySchema) }, ...commonErrors },
    }),
    async (c) => {
      const { row, secret } = await createApiKey(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      return c.json({ ...presentApiKey(row), key: secret }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "List API keys (never the secrets)",
      security,
      middleware: admin,
      request: { query: PageQuery },
      responses: {
        200: {
          description: "Page of keys",
          content: json(pageOf("api_keys", ApiKeySchema)),
        },
        ...commonErrors,
      },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listApiKeys(c.get("ctx"), limit, offset);
      return c.json({ api_keys: rows.map(presentApiKey), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      summary: "Get an API key",
      security,
      middleware: admin,
      request: { params: ApiKeyIdParam },
      responses: { 200: { description: "Key", content: json(ApiKeySchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentApiKey(await getApiKey(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "revokeApiKey", path: "/{id}",
      audit: audited("api_key.revoke", byId),
      tags,
      summary: "Revoke an API key (kept, marked revoked; it stops working at once)",
      security,
      middleware: admin,
      request: { params: ApiKeyIdParam },
      responses: { 200: { description: "The revoked key", content: json(ApiKeySchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentApiKey(await revokeApiKey(c.get("ctx"), c.req.valid("param").id)), 200),
  );
