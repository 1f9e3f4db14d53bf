// /api/node-catalog: the registry's node types with ports, JSON Schema of their
// configuration (generated from zod) and documentation.
import { createRoute, z } from "@hono/zod-openapi";
import { notFound } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";
import { CATEGORIES, type NodeType } from "../node-type";
import { categories, configJsonSchema, registry } from "../registry";

const Port = z.object({ name: z.string(), type: z.string(), description: z.string().optional(), multiple: z.boolean().optional() });
const CatalogEntry = z
  .object({
    id: z.string(),
    name: z.string(),
    category: z.enum(CATEGORIES),
    description: z.string(),
    keywords: z.array(z.string()),
    trigger: z.string().nullable(),
    inputs: z.array(Port),
    outputs: z.array(Port),
    config_schema: z.record(z.string(), z.unknown()),
  })
  .openapi("NodeCatalogEntry");
const CatalogDetail = CatalogEntry.extend({
  documentation: z.object({ summary: z.string(), example: z.record(z.string(), z.unknown()) }),
  error_port: z.string(),
}).openapi("NodeCatalogDetail");

const entry = (n: NodeType<unknown>) => ({
  id: n.id,
  name: n.name,
  category: n.category,
  description: n.description,
  keywords: n.keywords,
  trigger: n.trigger?.kind ?? null,
  inputs: n.inputs,
  outputs: n.outputs,
  config_schema: configJsonSchema(n) as Record<string, unknown>,
});
const list = (nodes: NodeType<unknown>[]) => ({ nodes: nodes.map(entry), categories: [...categories], total_count: nodes.length });
const ListSchema = z.object({ nodes: z.array(CatalogEntry), categories: z.array(z.string()), total_count: z.number().int() });

const tags = ["Node catalog"];
const read = requirePermission("pipelines:read");

export const nodeCatalogRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List node types", security, middleware: read, request: { query: z.object({ category: z.enum(CATEGORIES).optional() }) }, responses: { 200: { description: "Catalog", content: json(ListSchema) }, ...commonErrors } }),
    (c) => c.json(list(registry.byCategory(c.req.valid("query").category)), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/search/{query}", tags, summary: "Search node types by name, description or keywords", security, middleware: read, request: { params: z.object({ query: z.string().min(1).openapi({ param: { name: "query", in: "path" } }) }) }, responses: { 200: { description: "Matches", content: json(ListSchema) }, ...commonErrors } }),
    (c) => c.json(list(registry.search(c.req.valid("param").query)), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/{nodeId}", tags, summary: "Full node schema with documentation", security, middleware: read, request: { params: z.object({ nodeId: z.string().openapi({ param: { name: "nodeId", in: "path" } }) }) }, responses: { 200: { description: "Node type", content: json(CatalogDetail) }, ...commonErrors, ...notFoundError } }),
    (c) => {
      const node = registry.get(c.req.valid("param").nodeId);
      if (!node) throw notFound(`No node type ${c.req.valid("param").nodeId}`, "NODE_TYPE_NOT_FOUND");
      return c.json({ ...entry(node), documentation: node.documentation, error_port: "error (json), emitted when the node's on_error is route" }, 200);
    },
  );
