// /api/node-catalog: the registry's node types with ports, JSON Schema of their
// configuration (generated from zod) and documentation.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { CatalogDetail, CatalogQuery, NodeTypeIdParam, NodeTypeListSchema, NodeTypeSearchParam, presentNodeTypeDetail, presentNodeTypes } from "../schemas";
import { getNodeType, listNodeTypes, searchNodeTypes } from "../use-cases/node-catalog";
import type { HttpEnv } from "../../../platform/http/http-env";

const tags = ["Node catalog"];
const read = requirePermission("pipelines:read");

export const nodeCatalogRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", operationId: "listNodeTypes", path: "/", tags, summary: "List node types", security, middleware: read, request: { query: CatalogQuery }, responses: { 200: { description: "Catalog", content: json(NodeTypeListSchema) }, ...commonErrors } }),
    (c) => c.json(presentNodeTypes(listNodeTypes(c.get("ctx").nodes, c.req.valid("query").category)), 200),
  )
  .openapi(
    createRoute({ method: "get", operationId: "searchNodeTypes", path: "/search/{query}", tags, summary: "Search node types by name, description or keywords", security, middleware: read, request: { params: NodeTypeSearchParam }, responses: { 200: { description: "Matches", content: json(NodeTypeListSchema) }, ...commonErrors } }),
    (c) => c.json(presentNodeTypes(searchNodeTypes(c.get("ctx").nodes, c.req.valid("param").query)), 200),
  )
  .openapi(
    createRoute({ method: "get", operationId: "getNodeType", path: "/{nodeId}", tags, summary: "Full node schema with documentation", security, middleware: read, request: { params: NodeTypeIdParam }, responses: { 200: { description: "Node type", content: json(CatalogDetail) }, ...commonErrors, ...notFoundError } }),
    (c) => c.json(presentNodeTypeDetail(getNodeType(c.get("ctx").nodes, c.req.valid("param").nodeId)), 200),
  );
