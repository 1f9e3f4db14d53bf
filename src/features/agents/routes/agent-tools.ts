// /api/agents/{id}/tools: list, assign and remove the tools an agent may call.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { AssignToolBody, AssignedToolSchema, IdParam, ToolParam, presentAssignedTools } from "../schemas";
import { assignAgentTool, listAgentTools, removeAgentTool } from "../use-cases/agent-tools";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId } from "../../audit";

const tags = ["Agents"];

const ToolsList = json(pageOf("tools", AssignedToolSchema));

export const agentToolRoutes = createRouter<HttpEnv>()
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
    async (c) => c.json(presentAssignedTools(await listAgentTools(c.get("ctx"), c.get("principal"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/tools",
      audit: audited("agent.tool_assign", byId),
      tags,
      summary: "Assign a tool (a built-in tool name, or a custom tool's id or name; 400 when no tool has that name)",
      security,
      middleware: requirePermission("agents:manage"),
      request: {
        params: IdParam,
        body: { required: true, content: json(AssignToolBody) },
      },
      responses: { 200: { description: "Assigned tools", content: ToolsList }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const tools = await assignAgentTool(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json").tool);
      return c.json(presentAssignedTools(tools), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/tools/{toolId}",
      audit: audited("agent.tool_remove", byId),
      tags,
      summary: "Remove a tool from the agent",
      security,
      middleware: requirePermission("agents:manage"),
      request: { params: ToolParam },
      responses: { 204: { description: "Removed" }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { id, toolId } = c.req.valid("param");
      await removeAgentTool(c.get("ctx"), c.get("principal"), id, toolId);
      return c.body(null, 204);
    },
  );
