// Conversations with an agent: the index in D1, each one's history in its own
// Conversation Durable Object (which serializes concurrent sends).
import type { OrgData } from "../../../platform/org-data";
import { notFound } from "../../../platform/errors";
import type { Principal } from "../../tenancy";
import { loadAgent } from "../access";
import { conversationStub } from "../chat";
import type { StoredMessage } from "../conversation";
import { AgentStore } from "../store";
import type { AgentConversationRow, AgentRow } from "../tables";

/** The agent and its conversation `cid`: 404 when either is not the org's. */
export async function loadConversation(data: OrgData, agentId: string, cid: string): Promise<{ agent: AgentRow; conv: AgentConversationRow }> {
  const { db, orgId } = data;
  const agent = await loadAgent(db, orgId, agentId);
  const conv = await new AgentStore(db).getConversation(orgId, agent.id, cid);
  if (!conv) throw notFound(`Conversation ${cid} not found`, "CONVERSATION_NOT_FOUND");
  return { agent, conv };
}

export async function getConversation(data: OrgData, agentId: string, cid: string): Promise<AgentConversationRow> {
  return (await loadConversation(data, agentId, cid)).conv;
}

export async function listConversations(data: OrgData, agentId: string, limit: number, offset: number): Promise<{ rows: AgentConversationRow[]; total: number }> {
  const { db, orgId } = data;
  const agent = await loadAgent(db, orgId, agentId);
  return new AgentStore(db).listConversations(orgId, agent.id, limit, offset);
}

export async function startConversation(data: OrgData, principal: Principal, agentId: string, title: string): Promise<AgentConversationRow> {
  const { db } = data;
  const agent = await loadAgent(db, principal.orgId, agentId);
  return new AgentStore(db).createConversation(principal.orgId, agent.id, title, principal.keyId);
}

/** Destroys the conversation's object (its messages), then its index entry. */
export async function deleteConversation(data: OrgData, agentId: string, cid: string): Promise<void> {
  const { db, env, orgId } = data;
  const { agent } = await loadConversation(data, agentId, cid);
  await conversationStub(env, orgId, agent.id, cid).destroy(orgId);
  await new AgentStore(db).deleteConversation(orgId, agent.id, cid);
}

/** A page of the conversation's messages, oldest first. */
export async function conversationMessages(
  data: OrgData,
  agentId: string,
  cid: string,
  limit: number,
  offset: number,
): Promise<{ messages: StoredMessage[]; total: number }> {
  const { env, orgId } = data;
  const { agent } = await loadConversation(data, agentId, cid);
  return conversationStub(env, orgId, agent.id, cid).messages(orgId, limit, offset);
}
