// The tools an agent may call: listed with their availability, assigned by name or
// custom tool id, removed by name or custom tool id.
import type { OrgContext } from "../../../platform/org-context";
import { notFound } from "../../../platform/errors";
import type { Principal } from "../../tenancy";
import { loadAgent } from "../access";
import { AgentStore } from "../store";
import { type AssignedTool, describeTools, resolveAssignable } from "../tools/registry";

export async function listAgentTools(ctx: OrgContext, principal: Principal, agentId: string): Promise<AssignedTool[]> {
  const { db } = ctx;
  const agent = await loadAgent(db, principal.orgId, agentId);
  return describeTools(agent.tools, ctx.agents(principal));
}

/** Assigns a tool (400 when no tool has that name); assigning one twice keeps it once. */
export async function assignAgentTool(ctx: OrgContext, principal: Principal, agentId: string, tool: string): Promise<AssignedTool[]> {
  const { db } = ctx;
  const agent = await loadAgent(db, principal.orgId, agentId);
  const services = ctx.agents(principal);
  const info = await resolveAssignable(tool, services);
  const names = agent.tools.includes(info.name) ? agent.tools : [...agent.tools, info.name];
  await new AgentStore(db).update(principal.orgId, agent.id, { tools: names });
  return describeTools(names, services);
}

export async function removeAgentTool(ctx: OrgContext, principal: Principal, agentId: string, toolId: string): Promise<void> {
  const { db } = ctx;
  const agent = await loadAgent(db, principal.orgId, agentId);
  let name = toolId;
  if (!agent.tools.includes(toolId)) {
    // Custom tools may be named by id.
    const custom = await ctx.agents(principal)
      .customTool(toolId)
      .catch(() => undefined);
    name = custom?.name ?? toolId;
  }
  if (!agent.tools.includes(name)) throw notFound(`Tool ${toolId} is not assigned to agent ${agentId}`, "TOOL_NOT_FOUND");
  await new AgentStore(db).update(principal.orgId, agent.id, { tools: agent.tools.filter((t) => t !== name) });
}
