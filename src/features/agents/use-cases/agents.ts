// Agent management: list (or the base templates), create from fields or a template,
// read, update, delete (its conversations' objects destroyed in the background),
// deploy and undeploy, version snapshots and restore.
import type { z } from "@hono/zod-openapi";
import type { OrgContext } from "../../../platform/org-context";
import { agentNotFound, conflict, notFound, validationFailed } from "../../../platform/errors";
import type { Principal } from "../../tenancy";
import { checkModelConfig, loadAgent } from "../access";
import { conversationStub } from "../chat";
import type { AgentListQuery, CreateAgentBody, UpdateAgentBody } from "../schemas";
import { type AgentConfig, AgentStore } from "../store";
import type { AgentRow, AgentVersionRow } from "../tables";
import { type AgentTemplate, BASE_TEMPLATES, templateById } from "../templates";
import { knownToolNames } from "../tools/registry";

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

/** The fields an update names, as the store's patch. */
function patchFromUpdate(b: z.infer<typeof UpdateAgentBody>, tools: string[] | undefined): Partial<AgentConfig> & { status?: AgentRow["status"] } {
  return {
    ...(b.name !== undefined ? { name: b.name } : {}),
    ...(b.agent_type !== undefined ? { agentType: b.agent_type } : {}),
    ...(b.description !== undefined ? { description: b.description } : {}),
    ...(b.model_config !== undefined ? { modelConfig: b.model_config } : {}),
    ...(b.system_prompt !== undefined ? { systemPrompt: b.system_prompt } : {}),
    ...(b.prompt_template !== undefined ? { promptTemplate: b.prompt_template } : {}),
    ...(tools ? { tools } : {}),
    ...(b.project_id !== undefined ? { projectId: b.project_id } : {}),
    ...(b.status !== undefined ? { status: b.status } : {}),
  };
}

/** A page of the org's agents, or with `base_templates` of the base templates. */
export async function listAgents(ctx: OrgContext, q: z.infer<typeof AgentListQuery>): Promise<{ rows: (AgentRow | AgentTemplate)[]; total: number }> {
  const { db, orgId } = ctx;
  if (q.base_templates) {
    const all = BASE_TEMPLATES.filter((t) => !q.type || t.agent_type === q.type);
    return { rows: all.slice(q.offset, q.offset + q.limit), total: all.length };
  }
  return new AgentStore(db).list(orgId, { type: q.type, isActive: q.is_active, projectId: q.project_id }, q.limit, q.offset);
}

export async function createAgent(ctx: OrgContext, principal: Principal, body: z.infer<typeof CreateAgentBody>): Promise<AgentRow> {
  const { db } = ctx;
  const { config, templateId } = configFromCreate(body);
  await checkModelConfig(ctx, principal, config.modelConfig);
  config.tools = await knownToolNames(config.tools, ctx.agents(principal));
  return new AgentStore(db).create(principal.orgId, config, templateId);
}

/** An agent of the org, or a base template by its id. */
export async function getAgent(ctx: OrgContext, id: string): Promise<AgentRow | AgentTemplate> {
  const { db, orgId } = ctx;
  return templateById(id) ?? loadAgent(db, orgId, id);
}

export async function updateAgent(ctx: OrgContext, principal: Principal, id: string, body: z.infer<typeof UpdateAgentBody>): Promise<AgentRow> {
  const { db } = ctx;
  await loadAgent(db, principal.orgId, id);
  if (body.model_config) await checkModelConfig(ctx, principal, body.model_config);
  const tools = body.tools && (await knownToolNames(body.tools, ctx.agents(principal)));
  return (await new AgentStore(db).update(principal.orgId, id, patchFromUpdate(body, tools))) ?? gone(id);
}

/**
 * Deletes an undeployed agent with its versions and conversation index; the conversations'
 * objects are destroyed by `conversationsDestroyed`, for the caller to let finish in the background.
 */
export async function deleteAgent(ctx: OrgContext, id: string): Promise<{ conversationsDestroyed: Promise<unknown> }> {
  const { db, env, orgId } = ctx;
  const agent = await loadAgent(db, orgId, id);
  if (agent.deployed) throw deployedAgent(agent.id);
  const store = new AgentStore(db);
  const conversations = await store.conversationIds(orgId, agent.id);
  if (!(await store.delete(orgId, agent.id))) {
    if (await store.get(orgId, agent.id)) throw deployedAgent(agent.id);
    gone(agent.id);
  }
  return { conversationsDestroyed: Promise.all(conversations.map((cid) => conversationStub(env, orgId, agent.id, cid).destroy(orgId))) };
}

/** Deploying needs an active agent; undeploying always succeeds. */
export async function setAgentDeployed(ctx: OrgContext, id: string, deployed: boolean): Promise<AgentRow> {
  const { db, orgId } = ctx;
  const agent = await loadAgent(db, orgId, id);
  if (deployed && agent.status !== "active") throw conflict(`Agent ${agent.id} is inactive; activate it before deploying`, "AGENT_INACTIVE");
  return (await new AgentStore(db).setDeployed(orgId, agent.id, deployed)) ?? gone(agent.id);
}

export async function listAgentVersions(ctx: OrgContext, id: string, limit: number, offset: number): Promise<{ rows: AgentVersionRow[]; total: number }> {
  const { db, orgId } = ctx;
  const agent = await loadAgent(db, orgId, id);
  return new AgentStore(db).listVersions(orgId, agent.id, limit, offset);
}

export async function snapshotAgent(ctx: OrgContext, principal: Principal, id: string, note: string | null): Promise<AgentVersionRow> {
  const { db } = ctx;
  const agent = await loadAgent(db, principal.orgId, id);
  return (await new AgentStore(db).createVersion(principal.orgId, agent, note, principal.keyId)) ?? gone(agent.id);
}

/** Brings back a version's configuration; the deploy state is kept. */
export async function restoreAgentVersion(ctx: OrgContext, id: string, version: number): Promise<AgentRow> {
  const { db, orgId } = ctx;
  await loadAgent(db, orgId, id);
  const store = new AgentStore(db);
  const snap = await store.getVersion(orgId, id, version);
  if (!snap) throw notFound(`Agent ${id} has no version ${version}`, "AGENT_VERSION_NOT_FOUND");
  return (await store.update(orgId, id, snap.snapshot as unknown as AgentConfig)) ?? gone(id);
}
