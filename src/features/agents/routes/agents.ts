// /api/agents: agent CRUD with filters and base templates, deploy/undeploy,
// and version snapshots with restore.
import { createRoute, z } from "@hono/zod-openapi";
import { agentStore, checkModelConfig, loadAgent } from "../access";
import { conversationStub } from "../chat";
import {
  AgentSchema,
  AgentVersionSchema,
  CreateAgentBody,
  IdParam,
  UpdateAgentBody,
  presentAgent,
  presentTemplate,
  presentVersion,
} from "../api-schemas";
import { agentServicesFor } from "../../../service-wiring";
import type { AgentConfig } from "../store";
import { knownToolNames } from "../tools/registry";
import { AGENT_TYPES, BASE_TEMPLATES, templateById } from "../templates";
import { agentNotFound, conflict, notFound, validationFailed } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";

const tags = ["Agents"];
const read = requirePermission("agents:read");
const manage = requirePermission("agents:manage");
const BoolParam = z.enum(["true", "false"]).transform((v) => v === "true");

const ListQuery = PageQuery.extend({
  base_templates: BoolParam.optional().openapi({ description: "true: only the base templates" }),
  type: z.enum(AGENT_TYPES).optional(),
  is_active: BoolParam.optional(),
  project_id: z.string().max(100).optional(),
});

const VersionParam = IdParam.extend({
  version: z.coerce.number().int().min(1).openapi({ param: { name: "version", in: "path" } }),
});

/** An agent deleted by a racing request between its load and the write. */
const gone = (id: string): never => {
  throw agentNotFound(id);
};

const deployedAgent = (id: string) => conflict(`Agent ${id} is deployed; undeploy it first`, "AGENT_DEPLOYED");

function configFromCreate(body: z.infer<typeof CreateAgentBody>): { config: AgentConfig; templateId: string | null } {
  const template = body.template_id ? templateById(body.template_id) : undefined;
  if (body.template_id && !template) {
    throw validationFailed("Unknown template", [{ path: "template_id", message: `No base template ${body.template_id}` }]);
  }
  const missing = (["name", "agent_type", "model_config"] as const).filter((k) => body[k] === undefined && !template);
  if (missing.length) {
    throw validationFailed("Missing fields", missing.map((path) => ({ path, message: "Required without template_id" })));
  }
  return {
    templateId: template?.id ?? null,
    config: {
      name: body.name ?? template!.name,
      agentType: body.agent_type ?? template!.agent_type,
      description: body.description ?? template?.description ?? "",
      modelConfig: body.model_config ?? template!.model_config,
      systemPrompt: body.system_prompt ?? template?.system_prompt ?? "",
      promptTemplate: body.prompt_template ?? template?.prompt_template ?? "{{input}}",
      tools: body.tools ?? template?.tools ?? [],
      projectId: body.project_id ?? null,
    },
  };
}

export const agentRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags,
      summary: "List agents (or, with base_templates=true, the base templates)",
      security,
      middleware: read,
      request: { query: ListQuery },
      responses: {
        200: {
          description: "Page of agents",
          content: json(pageOf("agents", AgentSchema)),
        },
        ...commonErrors,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      if (q.base_templates) {
        const all = BASE_TEMPLATES.filter((t) => !q.type || t.agent_type === q.type).map(presentTemplate);
        return c.json({ agents: all.slice(q.offset, q.offset + q.limit), total_count: all.length }, 200);
      }
      const { rows, total } = await agentStore(c.env).list(
        c.get("principal").orgId,
        { type: q.type, isActive: q.is_active, projectId: q.project_id },
        q.limit,
        q.offset,
      );
      return c.json({ agents: rows.map(presentAgent), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags,
      summary: "Create an agent",
      security,
      middleware: manage,
      request: { body: { required: true, content: json(CreateAgentBody) } },
      responses: { 201: { description: "Created", content: json(AgentSchema) }, ...commonErrors },
    }),
    async (c) => {
      const principal = c.get("principal");
      const { config, templateId } = configFromCreate(c.req.valid("json"));
      await checkModelConfig(c.env, principal, config.modelConfig);
      config.tools = await knownToolNames(config.tools, agentServicesFor(c.env, principal));
      const row = await agentStore(c.env).create(principal.orgId, config, templateId);
      return c.json(presentAgent(row), 201);
    },
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
    async (c) => {
      const id = c.req.valid("param").id;
      const template = templateById(id);
      if (template) return c.json(presentTemplate(template), 200);
      return c.json(presentAgent(await loadAgent(c.env, c.get("principal"), id)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/{id}",
      tags,
      summary: "Update an agent (fields not given are kept)",
      security,
      middleware: manage,
      request: { params: IdParam, body: { required: true, content: json(UpdateAgentBody) } },
      responses: { 200: { description: "Updated agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const { id } = c.req.valid("param");
      const b = c.req.valid("json");
      await loadAgent(c.env, principal, id);
      if (b.model_config) await checkModelConfig(c.env, principal, b.model_config);
      const tools = b.tools && (await knownToolNames(b.tools, agentServicesFor(c.env, principal)));
      const row = await agentStore(c.env).update(principal.orgId, id, {
        ...(b.name !== undefined ? { name: b.name } : {}),
        ...(b.agent_type !== undefined ? { agentType: b.agent_type } : {}),
        ...(b.description !== undefined ? { description: b.description } : {}),
        ...(b.model_config !== undefined ? { modelConfig: b.model_config } : {}),
        ...(b.system_prompt !== undefined ? { systemPrompt: b.system_prompt } : {}),
        ...(b.prompt_template !== undefined ? { promptTemplate: b.prompt_template } : {}),
        ...(tools ? { tools } : {}),
        ...(b.project_id !== undefined ? { projectId: b.project_id } : {}),
        ...(b.status !== undefined ? { status: b.status } : {}),
      });
      return c.json(presentAgent(row ?? gone(id)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags,
      summary: "Delete an agent, its versions and conversations (409 while deployed)",
      security,
      middleware: manage,
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      if (agent.deployed) throw deployedAgent(agent.id);
      const store = agentStore(c.env);
      const conversations = await store.conversationIds(principal.orgId, agent.id);
      if (!(await store.delete(principal.orgId, agent.id))) {
        if (await store.get(principal.orgId, agent.id)) throw deployedAgent(agent.id);
        gone(agent.id);
      }
      c.executionCtx.waitUntil(
        Promise.all(
          conversations.map((cid) => conversationStub(c.env, principal.orgId, agent.id, cid).destroy(principal.orgId)),
        ),
      );
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/deploy",
      tags,
      summary: "Deploy: the agent becomes available to pipelines and the public invoke endpoint",
      security,
      middleware: manage,
      request: { params: IdParam },
      responses: { 200: { description: "Deployed agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      if (agent.status !== "active") throw conflict(`Agent ${agent.id} is inactive; activate it before deploying`, "AGENT_INACTIVE");
      return c.json(presentAgent((await agentStore(c.env).setDeployed(principal.orgId, agent.id, true)) ?? gone(agent.id)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/undeploy",
      tags,
      summary: "Undeploy: pipelines and the public endpoint stop serving the agent",
      security,
      middleware: manage,
      request: { params: IdParam },
      responses: { 200: { description: "Undeployed agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      return c.json(presentAgent((await agentStore(c.env).setDeployed(principal.orgId, agent.id, false)) ?? gone(agent.id)), 200);
    },
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
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await agentStore(c.env).listVersions(principal.orgId, agent.id, limit, offset);
      return c.json({ versions: rows.map(presentVersion), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/versions",
      tags,
      summary: "Snapshot the agent's current configuration as a new version",
      security,
      middleware: manage,
      request: {
        params: IdParam,
        body: { required: false, content: json(z.object({ note: z.string().max(500).optional() }).strict()) },
      },
      responses: { 201: { description: "The new version", content: json(AgentVersionSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      const note = c.req.valid("json")?.note ?? null;
      const row = await agentStore(c.env).createVersion(principal.orgId, agent, note, principal.keyId);
      return c.json(presentVersion(row ?? gone(agent.id)), 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/versions/{version}/restore",
      tags,
      summary: "Restore the agent's configuration from a version (deploy state is kept)",
      security,
      middleware: manage,
      request: { params: VersionParam },
      responses: { 200: { description: "Restored agent", content: json(AgentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const { id, version } = c.req.valid("param");
      await loadAgent(c.env, principal, id);
      const store = agentStore(c.env);
      const snap = await store.getVersion(principal.orgId, id, version);
      if (!snap) throw notFound(`Agent ${id} has no version ${version}`, "AGENT_VERSION_NOT_FOUND");
      const row = await store.update(principal.orgId, id, snap.snapshot as unknown as AgentConfig);
      return c.json(presentAgent(row ?? gone(id)), 200);
    },
  );
