// /api/connectors: configured links to external systems. Credentials are
// write-only: responses carry masked values, never the secrets.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { Connector, ConnectorBody, ConnectorIdParam, ConnectorTypesSchema, TestResult, presentConnector, presentConnectorTypes } from "../schemas";
import { connectorTypes, createConnector, deleteConnector, getConnector, listConnectors, testConnector, updateConnector } from "../use-cases/connectors";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, newId } from "../../audit";

const tags = ["Connectors"];
const manage = requirePermission("connectors:manage");
const read = requirePermission("pipelines:read");

export const connectorRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", operationId: "listConnectorTypes", path: "/types", tags, summary: "Supported connector types", security, middleware: read, responses: { 200: { description: "Types", content: json(ConnectorTypesSchema) }, ...commonErrors } }),
    (c) => c.json(presentConnectorTypes(connectorTypes(c.get("ctx"))), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List connectors", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("connectors", Connector)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listConnectors(c.get("ctx"), limit, offset);
      return c.json({ connectors: rows.map(presentConnector), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", audit: audited("connector.create", newId), tags, summary: "Create a connector (credentials encrypted at rest)", security, middleware: manage, request: { body: { required: true, content: json(ConnectorBody) } }, responses: { 201: { description: "Created", content: json(Connector) }, ...commonErrors } }),
    async (c) => c.json(presentConnector(await createConnector(c.get("ctx"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a connector (masked credentials)", security, middleware: read, request: { params: ConnectorIdParam }, responses: { 200: { description: "Connector", content: json(Connector) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentConnector(await getConnector(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/{id}", audit: audited("connector.update", byId), tags, summary: "Update a connector", security, middleware: manage, request: { params: ConnectorIdParam, body: { required: true, content: json(ConnectorBody) } }, responses: { 200: { description: "Updated", content: json(Connector) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentConnector(await updateConnector(c.get("ctx"), c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", audit: audited("connector.delete", byId), tags, summary: "Delete a connector", security, middleware: manage, request: { params: ConnectorIdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      await deleteConnector(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/test", audit: audited("connector.test", byId), tags, summary: "Test the connection (FHIR: GET metadata; HTTP: GET endpoint)", security, middleware: manage, request: { params: ConnectorIdParam }, responses: { 200: { description: "Result", content: json(TestResult) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(await testConnector(c.get("ctx"), c.req.valid("param").id), 200),
  );
