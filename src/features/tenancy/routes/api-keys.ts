// /api/api-keys: administrators create, list, inspect and revoke their org's keys.
// The secret appears only in the creation response.
import { createRoute, z } from "@hono/zod-openapi";
import { checkScopedAgents } from "../../agents/access";
import { ROLES, isValidScope } from "../auth/permissions";
import { database } from "../../../platform/db/client";
import type { ApiKeyRow } from "../tables";
import { notFound } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { forgetCachedKey, requirePermission } from "../middleware/auth";
import { ApiKeyStore } from "../api-keys";

const ApiKeySchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    role: z.enum(ROLES),
    scopes: z.array(z.string()),
    key_prefix: z.string().openapi({ description: "First characters of the key, to tell keys apart" }),
    status: z.enum(["active", "revoked"]),
    created_at: z.string(),
    created_by: z.string().nullable(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKey");

const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The secret. Shown only in this response; store it safely." }),
}).openapi("CreatedApiKey");

const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    role: z.enum(ROLES),
    scopes: z
      .array(z.string().max(200).refine(isValidScope, { message: "Unknown scope; expected agent/<agent_id>:execute" }))
      .max(50)
      .default([])
      .openapi({ description: "Restricts the key to these scopes only, e.g. agent/<agent_id>:execute (the agent must exist in the organization)" }),
  })
  .strict()
  .openapi("CreateApiKey");

const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

function present(row: ApiKeyRow): z.infer<typeof ApiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    scopes: row.scopes,
    key_prefix: row.keyPrefix,
    status: row.revokedAt ? "revoked" : "active",
    created_at: row.createdAt,
    created_by: row.createdBy,
    last_used_at: row.lastUsedAt,
    revoked_at: row.revokedAt,
  };
}

const admin = requirePermission("keys:manage");
const tags = ["API keys"];

export const apiKeyRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags,
      summary: "Create an API key",
      security,
      middleware: admin,
      request: { body: { required: true, content: json(CreateApiKeyBody) } },
      responses: { 201: { description: "Created; the secret is in `key`", content: json(CreatedApiKeySchema) }, ...commonErrors },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const principal = c.get("principal");
      await checkScopedAgents(c.env, principal.orgId, body.scopes);
      const { row, secret } = await new ApiKeyStore(database(c.env.DB)).create({
        orgId: principal.orgId,
        name: body.name,
        role: body.role,
        scopes: body.scopes,
        createdBy: principal.keyId,
      });
      return c.json({ ...present(row), key: secret }, 201);
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
      const { rows, total } = await new ApiKeyStore(database(c.env.DB)).list(c.get("principal").orgId, limit, offset);
      return c.json({ api_keys: rows.map(present), total_count: total }, 200);
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
      request: { params: IdParam },
      responses: { 200: { description: "Key", content: json(ApiKeySchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const row = await new ApiKeyStore(database(c.env.DB)).get(c.get("principal").orgId, c.req.valid("param").id);
      if (!row) throw notFound("API key not found", "API_KEY_NOT_FOUND");
      return c.json(present(row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags,
      summary: "Revoke an API key (kept, marked revoked; it stops working at once)",
      security,
      middleware: admin,
      request: { params: IdParam },
      responses: { 200: { description: "The revoked key", content: json(ApiKeySchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const row = await new ApiKeyStore(database(c.env.DB)).revoke(c.get("principal").orgId, c.req.valid("param").id);
      if (!row) throw notFound("API key not found", "API_KEY_NOT_FOUND");
      forgetCachedKey(row.keyHash);
      return c.json(present(row), 200);
    },
  );
