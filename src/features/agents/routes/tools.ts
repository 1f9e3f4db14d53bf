// /api/tools: custom tools that agents can be given (name, description, JSON
// Schema of parameters, implementation), and a direct invocation for testing.
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../../platform/db/client";
import type { ToolRow } from "../tools/custom/tables";
import type { Env } from "../../../platform/env";
import { validationFailed } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";
import { ToolBody, ToolImplementationSchema, type ToolInput } from "../tools/custom/definition";
import { invokeTool } from "../../../service-wiring";
import { implementationErrors } from "../tools/custom/invoke";
import { ToolStore } from "../tools/custom/store";

const Tool = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    implementation: ToolImplementationSchema,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Tool");

const view = (r: ToolRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  parameters: r.parameters,
  implementation: r.implementation as z.infer<typeof ToolImplementationSchema>,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

const tags = ["Tools"];
const read = requirePermission("pipelines:read");
const manage = requirePermission("pipelines:manage");
const store = (env: Env) => new ToolStore(database(env.DB));
const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

async function checked(env: Env, orgId: string, body: ToolInput): Promise<ToolInput> {
  const errors = await implementationErrors(env, orgId, body.implementation);
  if (errors.length) throw validationFailed("Invalid tool", errors);
  return body;
}

export const toolRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List custom tools", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("tools", Tool)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await store(c.env).list(c.get("principal").orgId, limit, offset);
      return c.json({ tools: rows.map(view), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", tags, summary: "Create a custom tool", security, middleware: manage, request: { body: { required: true, content: json(ToolBody) } }, responses: { 201: { description: "Created", content: json(Tool) }, ...commonErrors, ...conflictError } }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      return c.json(view(await store(c.env).create(orgId, await checked(c.env, orgId, c.req.valid("json")))), 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a tool with its schema", security, middleware: read, request: { params: IdParam }, responses: { 200: { description: "Tool", content: json(Tool) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(view(await store(c.env).get(c.get("principal").orgId, c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/{id}", tags, summary: "Update a tool", security, middleware: manage, request: { params: IdParam, body: { required: true, content: json(ToolBody) } }, responses: { 200: { description: "Updated", content: json(Tool) }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      return c.json(view(await store(c.env).update(orgId, c.req.valid("param").id, await checked(c.env, orgId, c.req.valid("json")))), 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", tags, summary: "Delete a tool", security, middleware: manage, request: { params: IdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      await store(c.env).delete(c.get("principal").orgId, c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/invoke", tags, summary: "Invoke a tool with arguments, as an agent would", security, middleware: requirePermission("pipelines:execute"), request: { params: IdParam, body: { required: true, content: json(z.object({ arguments: z.record(z.string(), z.unknown()).default({}) }).strict()) } }, responses: { 200: { description: "Result", content: json(z.object({ ok: z.boolean(), result: z.unknown(), execution_id: z.string().optional(), status: z.number().int().optional() })) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      const tool = await store(c.env).get(orgId, c.req.valid("param").id);
      return c.json(await invokeTool(c.env, orgId, tool, c.req.valid("json").arguments, c.get("limits").concurrentExecutions), 200);
    },
  );
