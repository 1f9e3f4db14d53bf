// /api/tools: custom tools that agents can be given (name, description, JSON
// Schema of parameters, implementation), and a direct invocation for testing.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { ToolBody, ToolIdParam, ToolInvokeBody, ToolInvokeResultSchema, ToolSchema, presentTool } from "../schemas";
import { createTool, deleteTool, getTool, invokeToolById, listTools, updateTool } from "../use-cases/custom-tools";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, newId } from "../../audit";

const tags = ["Tools"];
const read = requirePermission("pipelines:read");
const manage = requirePermission("pipelines:manage");

export const toolRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List custom tools", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("tools", ToolSchema)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listTools(c.get("ctx"), limit, offset);
      return c.json({ tools: rows.map(presentTool), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", audit: audited("tool.create", newId), tags, summary: "Create a custom tool", security, middleware: manage, request: { body: { required: true, content: json(ToolBody) } }, responses: { 201: { description: "Created", content: json(ToolSchema) }, ...commonErrors, ...conflictError } }),
    async (c) => c.json(presentTool(await createTool(c.get("ctx"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a tool with its schema", security, middleware: read, request: { params: ToolIdParam }, responses: { 200: { description: "Tool", content: json(ToolSchema) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentTool(await getTool(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/{id}", audit: audited("tool.update", byId), tags, summary: "Update a tool", security, middleware: manage, request: { params: ToolIdParam, body: { required: true, content: json(ToolBody) } }, responses: { 200: { description: "Updated", content: json(ToolSchema) }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => c.json(presentTool(await updateTool(c.get("ctx"), c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", audit: audited("tool.delete", byId), tags, summary: "Delete a tool", security, middleware: manage, request: { params: ToolIdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      await deleteTool(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/invoke", audit: audited("tool.invoke", byId), tags, summary: "Invoke a tool with arguments, as an agent would", security, middleware: requirePermission("pipelines:execute"), request: { params: ToolIdParam, body: { required: true, content: json(ToolInvokeBody) } }, responses: { 200: { description: "Result", content: json(ToolInvokeResultSchema) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const result = await invokeToolById(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json").arguments, c.get("limits").concurrentExecutions);
      return c.json(result, 200);
    },
  );
