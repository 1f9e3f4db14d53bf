// /api/agents: agent CRUD with filters and base templates, deploy/undeploy,
// and version snapshots with restore.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import {
  AgentListQuery,
  AgentSchema,
  AgentVersionSchema,
  CreateAgentBody,
  IdParam,
  SnapshotBody,
  UpdateAgentBody,
  VersionParam,
  presentAgent,
  presentListed,
  presentVersion,
} from "../schemas";
import {
  createAgent,
  deleteAgent,
  getAgent,
  listAgentVersions,
  listAgents,
  restoreAgentVersion,
  setAgentDeployed,
  snapshotAgent,
  updateAgent,
} from "../use-cases/agents";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, newId } from "../../audit";

const tags = ["Agents"];
const read = requirePermission("agents:read");
const manage = requirePermission("agents:manage");

export const agentRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "List agents (or, with base_templates=true, the base templates)",
      security,
      middleware: read,
      request: { query: AgentListQuery },
      responses: {
        200: {
          description: "Page of agents",
          content: json(pageOf("agents", AgentSchema)),
        },
        ...commonErrors,
      },
    }),
    async (c) => {
      const { rows, total } = await listAgents(c.get("ctx"), c.req.valid("query"));
      return c.json({ agents: rows.map(presentListed), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      audit: audited("agent.create", newId),
      tags,
      summary: "Create an agent",
      security,
      middleware: manage,
      request: { body: { required: true, content: json(CreateAgentBody) } },
      responses: { 201: { description: "Created", content: json(AgentSchema) }, ...commonErrors },
    }),
    async (c) => c.json(presentAgent(await createAgent(c.get("ctx"), c.get("principal"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags,
      summary: "Get an agent",
      security,
      middleware: read,
      request: { params: IdParam },
      responses: { 200: { description: "Agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentListed(await getAgent(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/{id}",
      audit: audited("agent.update", byId),
      tags,
      summary: "Update an agent (fields not given are kept)",
      security,
      middleware: manage,
      request: { params: IdParam, body: { required: true, content: json(UpdateAgentBody) } },
      responses: { 200: { description: "Updated agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentAgent(await updateAgent(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      audit: audited("agent.delete", byId),
      tags,
      summary: "Delete an agent, its versions and conversations (409 while deployed)",
      security,
      middleware: manage,
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => {
      const { conversationsDestroyed } = await deleteAgent(c.get("ctx"), c.req.valid("param").id);
      c.executionCtx.waitUntil(conversationsDestroyed);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/deploy",
      audit: audited("agent.deploy", byId),
      tags,
      summary: "Deploy: the agent becomes available to pipelines and the public invoke endpoint",
      security,
      middleware: manage,
      request: { params: IdParam },
      responses: { 200: { description: "Deployed agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => c.json(presentAgent(await setAgentDeployed(c.get("ctx"), c.req.valid("param").id, true)), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/undeploy",
      audit: audited("agent.undeploy", byId),
      tags,
      summary: "Undeploy: pipelines and the public endpoint stop serving the agent",
      security,
      middleware: manage,
      request: { params: IdParam },
      responses: { 200: { description: "Undeployed agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentAgent(await setAgentDeployed(c.get("ctx"), c.req.valid("param").id, false)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/versions",
      tags,
      summary: "List the agent's version snapshots, newest first",
      security,
      middleware: read,
      request: { params: IdParam, query: PageQuery },
      responses: {
        200: {
          description: "Versions",
          content: json(pageOf("versions", AgentVersionSchema)),
        },
        ...commonErrors,
        ...notFoundError,
      },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listAgentVersions(c.get("ctx"), c.req.valid("param").id, limit, offset);
      return c.json({ versions: rows.map(presentVersion), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/versions",
      audit: audited("agent.version", byId),
      tags,
      summary: "Snapshot the agent's current configuration as a new version",
      security,
      middleware: manage,
      request: {
        params: IdParam,
        body: { required: false, content: json(SnapshotBody) },
      },
      responses: { 201: { description: "The new version", content: json(AgentVersionSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const note = c.req.valid("json")?.note ?? null;
      return c.json(presentVersion(await snapshotAgent(c.get("ctx"), c.get("principal"), c.req.valid("param").id, note)), 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/versions/{version}/restore",
      audit: audited("agent.restore", byId),
      tags,
      summary: "Restore the agent's configuration from a version (deploy state is kept)",
      security,
      middleware: manage,
      request: { params: VersionParam },
      responses: { 200: { description: "Restored agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(presentAgent(await restoreAgentVersion(c.get("ctx"), id, version)), 200);
    },
  );
