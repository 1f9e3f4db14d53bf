// /api/agents/{id}/tools: list, assign and remove the tools an agent may call.
import { createRoute, z } from "@hono/zod-openapi";
import { agentStore, loadAgent } from "../access";
import { IdParam } from "../api-schemas";
import { agentServicesFor } from "../../../service-wiring";
import { describeTools, resolveAssignable } from "../tools/registry";
import { notFound } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";

const tags = ["Agents"];

const AssignedToolSchema = z
  .object({
    name: z.string(),
    kind: z.enum(["built-in", "custom"]),
    id: z.string().optional(),
    description: z.string(),
    available: z.boolean().openapi({ description: "false when the tool no longer exists or needs a missing module" }),
  })
  .openapi("AgentTool");

const ToolsList = json(pageOf("tools", AssignedToolSchema));

export const agentToolRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/tools",
      tags,
      summary: "List the tools assigned to the agent",
      security,
      middleware: requirePermission("agents:read"),
      request: { params: IdParam },
      responses: { 200: { description: "Assigned tools", content: ToolsList }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      const tools = await describeTools(agent.tools, agentServicesFor(c.env, principal));
      return c.json({ tools, total_count: tools.length }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/tools",
      tags,
      summary: "Assign a tool (a built-in tool name, or a custom tool's id or name; 400 when no tool has that name)",
      security,
      middleware: requirePermission("agents:manage"),
      request: {
        params: IdParam,
        body: { required: true, content: json(z.object({ tool: z.string().min(1).max(100) }).strict().openapi("AssignTool")) },
      },
      responses: { 200: { description: "Assigned tools", content: ToolsList }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      const services = agentServicesFor(c.env, principal);
      const info = await resolveAssignable(c.req.valid("json").tool, services);
      const names = agent.tools.includes(info.name) ? agent.tools : [...agent.tools, info.name];
      await agentStore(c.env).update(principal.orgId, agent.id, { tools: names });
      const tools = await describeTools(names, services);
      return c.json({ tools, total_count: tools.length }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/tools/{toolId}",
      tags,
      summary: "Remove a tool from the agent",
      security,
      middleware: requirePermission("agents:manage"),
      request: { params: IdParam.extend({ toolId: z.string().min(1).max(100).openapi({ param: { name: "toolId", in: "path" } }) }) },
      responses: { 204: { description: "Removed" }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const { id, toolId } = c.req.valid("param");
      const agent = await loadAgent(c.env, principal, id);
      let name = toolId;
      if (!agent.tools.includes(toolId)) {
        // Custom tools may be named by id.
        const custom = await agentServicesFor(c.env, principal).customTool(toolId).catch(() => undefined);
        name = custom?.name ?? toolId;
      }
      if (!agent.tools.includes(name)) throw notFound(`Tool ${toolId} is not assigned to agent ${id}`, "TOOL_NOT_FOUND");
      await agentStore(c.env).update(principal.orgId, agent.id, { tools: agent.tools.filter((t) => t !== name) });
      return c.body(null, 204);
    },
  );
