// /api/connectors: configured links to external systems. Credentials are
// write-only: responses carry masked values, never the secrets.
import { createRoute, z } from "@hono/zod-openapi";
import { forgetConnectorTokens, connectorClient } from "../client";
import { assertConnectorDestinations } from "../destinations";
import { ConnectorStore } from "../store";
import { AuthSchema, CONNECTOR_TYPES, type ConnectorAuth, connectorConfigErrors, inferAuthKind } from "../types";
import { database } from "../../../platform/db/client";
import type { ConnectorRow } from "../tables";
import type { Env } from "../../../platform/env";
import { notFound, validationFailed } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, jsonAtMost, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";
import { outboundPolicyOf } from "../../../platform/outbound/policy";

const Connector = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    type: z.string(),
    endpoint: z.string(),
    auth: z.record(z.string(), z.string()),
    credentials: z.record(z.string(), z.string()).openapi({ description: "Masked; secrets are never returned" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Connector");

/** Tokens, keys and certificates: ample room, kept (encrypted) in the connector's row. */
const MAX_CREDENTIALS_BYTES = 64 * 1024;

const ConnectorBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    type: z.string().max(100),
    endpoint: z.url().max(2048).openapi({ description: "https://… for HTTP-based types, mllp://host:port or mllps://host:port for mllp" }),
    auth: AuthSchema.optional().openapi({ description: "Default: inferred from the credentials (client_id → oauth2_client_credentials, token → bearer)" }),
    credentials: z
      .record(z.string().max(200), z.string().max(8192))
      .superRefine(jsonAtMost(MAX_CREDENTIALS_BYTES))
      .optional()
      .openapi({ description: `Omit on update to keep the stored credentials; at most ${MAX_CREDENTIALS_BYTES} bytes of JSON` }),
  })
  .strict()
  .openapi("ConnectorInput");

const TestResult = z.object({ ok: z.boolean(), status: z.number().int().optional(), latency_ms: z.number().int(), message: z.string() }).openapi("ConnectionTestResult");

const view = (r: ConnectorRow): z.infer<typeof Connector> => ({
  id: r.id,
  name: r.name,
  type: r.type,
  endpoint: r.endpoint,
  auth: r.auth,
  credentials: r.credentialsMasked,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

const tags = ["Connectors"];
const manage = requirePermission("connectors:manage");
const read = requirePermission("pipelines:read");
const store = (env: Env) => new ConnectorStore(database(env.DB), env);
const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });
const missing = (id: string) => notFound(`Connector ${id} not found`, "CONNECTOR_NOT_FOUND");

/** Validates the body; on update, omitted credentials (and auth) mean the stored ones, which must still fit. */
function checked(env: Env, body: z.infer<typeof ConnectorBody>, stored?: { auth: ConnectorAuth; credentials: Record<string, string> }) {
  const credentials = body.credentials ?? stored?.credentials ?? {};
  const auth = body.auth ?? (body.credentials || !stored ? { kind: inferAuthKind(credentials) } : stored.auth);
  const errors = connectorConfigErrors(body.type, body.endpoint, auth, credentials);
  if (errors.length) throw validationFailed("Invalid connector", errors);
  assertConnectorDestinations({ type: body.type, endpoint: body.endpoint, auth }, outboundPolicyOf(env));
  return { name: body.name, type: body.type, endpoint: body.endpoint, auth, credentials: body.credentials };
}

export const connectorRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/types", tags, summary: "Supported connector types", security, middleware: read, responses: { 200: { description: "Types", content: json(z.object({ types: z.array(z.object({ type: z.string(), name: z.string(), description: z.string(), auth_kinds: z.array(z.string()), schemes: z.array(z.string()) })) })) }, ...commonErrors } }),
    (c) => c.json({ types: CONNECTOR_TYPES.map(({ test_path: _, ...t }) => t) }, 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List connectors", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("connectors", Connector)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await store(c.env).list(c.get("principal").orgId, limit, offset);
      return c.json({ connectors: rows.map(view), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", tags, summary: "Create a connector (credentials encrypted at rest)", security, middleware: manage, request: { body: { required: true, content: json(ConnectorBody) } }, responses: { 201: { description: "Created", content: json(Connector) }, ...commonErrors } }),
    async (c) => c.json(view(await store(c.env).create(c.get("principal").orgId, checked(c.env, c.req.valid("json")))), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a connector (masked credentials)", security, middleware: read, request: { params: IdParam }, responses: { 200: { description: "Connector", content: json(Connector) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const row = await store(c.env).get(c.get("principal").orgId, c.req.valid("param").id);
      if (!row) throw missing(c.req.valid("param").id);
      return c.json(view(row), 200);
    },
  )
  .openapi(
    createRoute({ method: "put", path: "/{id}", tags, summary: "Update a connector", security, middleware: manage, request: { params: IdParam, body: { required: true, content: json(ConnectorBody) } }, responses: { 200: { description: "Updated", content: json(Connector) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      const { id } = c.req.valid("param");
      const current = await store(c.env).resolve(orgId, id);
      if (!current) throw missing(id);
      const row = await store(c.env).update(orgId, id, checked(c.env, c.req.valid("json"), { auth: current.row.auth as ConnectorAuth, credentials: current.credentials }));
      if (!row) throw missing(id);
      forgetConnectorTokens(orgId, id);
      return c.json(view(row), 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", tags, summary: "Delete a connector", security, middleware: manage, request: { params: IdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      const { id } = c.req.valid("param");
      if (!(await store(c.env).delete(orgId, id))) throw missing(id);
      forgetConnectorTokens(orgId, id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/test", tags, summary: "Test the connection (FHIR: GET metadata; HTTP: GET endpoint)", security, middleware: manage, request: { params: IdParam }, responses: { 200: { description: "Result", content: json(TestResult) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(await connectorClient(c.env, c.get("principal").orgId, false).test(c.req.valid("param").id), 200),
  );
