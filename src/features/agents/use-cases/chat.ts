// Talking to an agent: a chat message (optionally continuing a conversation), a message
// sent within a conversation, and the public invocation of a deployed agent.
import type { OrgContext } from "../../../platform/org-context";
import type { Principal } from "../../tenancy";
import { loadAgent } from "../access";
import { type ChatOutcome, chat } from "../chat";
import type { AgentRow } from "../tables";
import { loadConversation } from "./conversations";

export type { ChatOutcome };

export interface ChatMessage {
  message: string;
  stream: boolean;
  conversationId?: string;
}

export async function chatWithAgent(ctx: OrgContext, principal: Principal, agentId: string, msg: ChatMessage): Promise<ChatOutcome> {
  const { db } = ctx;
  const agent = await loadAgent(db, principal.orgId, agentId);
  return chat(ctx, principal, agent, { input: msg.message, stream: msg.stream, conversationId: msg.conversationId });
}

/** A message within a conversation, which must belong to the agent. */
export async function sendConversationMessage(
  ctx: OrgContext,
  principal: Principal,
  agentId: string,
  conversationId: string,
  msg: Omit<ChatMessage, "conversationId">,
): Promise<ChatOutcome> {
  const { agent } = await loadConversation(ctx, agentId, conversationId);
  return chat(ctx, principal, agent, { input: msg.message, stream: msg.stream, conversationId });
}

/** Runs a deployed agent on `input` (never streamed). */
export async function invokeAgent(
  ctx: OrgContext,
  principal: Principal,
  agentId: string,
  input: Record<string, unknown>,
): Promise<{ agent: AgentRow; result: Extract<ChatOutcome, { result: unknown }>["result"] }> {
  const { db } = ctx;
  const agent = await loadAgent(db, principal.orgId, agentId, { deployed: true });
  const outcome = await chat(ctx, principal, agent, { input, stream: false });
  if ("stream" in outcome) throw new Error("invoke never streams");
  return { agent, result: outcome.result };
}
