// /api/v1/client-applications: administrators register their org's SMART clients — backend
// services (their public keys and system/ scopes) and apps users authorize (public or
// confidential, redirect URIs, launch URI, patient/ and user/ scopes) — list, change and delete
// them, and rotate a confidential client's secret (shown once).
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, errorResponse, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, newId } from "../../audit";
import { requirePermission } from "../../tenancy";
import { asJwks, ClientApplicationSchema, ClientIdParam, CreateClientBody, presentClient, UpdateClientBody } from "../schemas";
import { createClient, deleteClient, getClient, listClients, rotateSecret, updateClient } from "../use-cases";

const admin = requirePermission("clients:manage");
const tags = ["Client applications"];
const unusable = { 422: errorResponse("Unusable keys or scopes") };

export const clientApplicationRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags,
      summary: "Register a SMART client (a backend service or an app); a confidential client without keys gets its client_secret once, in this answer",
      audit: audited("client_application.create", newId),
      security,
      middleware: admin,
      request: { body: { required: true, content: json(CreateClientBody) } },
      responses: { 201: { description: "Registered; `id` is the client_id", content: json(ClientApplicationSchema) }, ...commonErrors, ...unusable },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { row, secret } = await createClient(c.get("ctx"), c.get("principal"), { ...body, jwks: asJwks(body.jwks) });
      return c.json(presentClient(row, secret), 201, { "Cache-Control": "no-store" });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "List client applications",
      security,
      middleware: admin,
      request: { query: PageQuery },
      responses: { 200: { description: "Page of clients", content: json(pageOf("client_applications", ClientApplicationSchema)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listClients(c.get("ctx"), limit, offset);
      return c.json({ client_applications: rows.map((r) => presentClient(r)), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      summary: "Get a client application",
      security,
      middleware: admin,
      request: { params: ClientIdParam },
      responses: { 200: { description: "Client", content: json(ClientApplicationSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentClient(await getClient(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      tags,
      summary: "Change a client application (its keys, scopes, status); tokens already issued run out (5 minutes)",
      audit: audited("client_application.update", byId),
      security,
      middleware: admin,
      request: { params: ClientIdParam, body: { required: true, content: json(UpdateClientBody) } },
      responses: { 200: { description: "Client", content: json(ClientApplicationSchema) }, ...commonErrors, ...notFoundError, ...unusable },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const changes = body.jwks === undefined ? { ...body, jwks: undefined } : { ...body, jwks: asJwks(body.jwks) };
      return c.json(presentClient(await updateClient(c.get("ctx"), c.req.valid("param").id, changes)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags,
      summary: "Delete a client application (no new tokens; issued ones run out within 5 minutes)",
      audit: audited("client_application.delete", byId),
      security,
      middleware: admin,
      request: { params: ClientIdParam },
      responses: { 200: { description: "The deleted client", content: json(ClientApplicationSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentClient(await deleteClient(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/secret",
      tags,
      summary: "Rotate a confidential client's secret: the new one is in this answer only; the old one stops at once",
      audit: audited("client_application.rotate_secret", byId),
      security,
      middleware: admin,
      request: { params: ClientIdParam },
      responses: {
        200: { description: "The client with its new client_secret", content: json(ClientApplicationSchema) },
        ...commonErrors,
        ...notFoundError,
        409: errorResponse("The client has no secret (public, or private_key_jwt)"),
      },
    }),
    async (c) => {
      const { row, secret } = await rotateSecret(c.get("ctx"), c.req.valid("param").id);
      return c.json(presentClient(row, secret), 200, { "Cache-Control": "no-store" });
    },
  );
