// Runs a chat message or an invocation for use cases: directly in the Worker when
// there is no conversation, through the conversation's Durable Object otherwise.
// Either way the answer is a TurnResult or an SSE stream.
import type { OrgContext } from "../../platform/org-context";
import type { SendResult } from "./conversation";
import { type Failure, apiErrorOf } from "../../platform/durable-objects/failure";
import type { Principal } from "../tenancy";
import type { AgentRow } from "./tables";
import type { Env } from "../../platform/env";
import { notFound } from "../../platform/errors";
import { orgObject } from "../../platform/durable-objects/object-names";
import { collectTurn } from "./events";
import { sseStream } from "./sse";
import { AgentStore } from "./store";
import { prepareTurn } from "./turn";

export type ChatOutcome = { result: Awaited<ReturnType<typeof collectTurn>> & { model?: string } } | { stream: ReadableStream<Uint8Array> };

export const toApiError = apiErrorOf;

export function conversationStub(env: Env, orgId: string, agentId: string, conversationId: string) {
  return orgObject(env.CONVERSATIONS, orgId, agentId, conversationId);
}

function unwrap(r: SendResult): ChatOutcome {
  if (!r.ok) throw toApiError((r as Failure).error);
  return "stream" in r ? { stream: r.stream } : { result: r.result };
}

export async function chat(
  ctx: OrgContext,
  principal: Principal,
  agent: AgentRow,
  req: { input: unknown; stream: boolean; conversationId?: string },
): Promise<ChatOutcome> {
  const { env } = ctx;
  if (req.conversationId) {
    const found = await new AgentStore(ctx.db).getConversation(principal.orgId, agent.id, req.conversationId);
    if (!found) throw notFound(`Conversation ${req.conversationId} not found`, "CONVERSATION_NOT_FOUND");
    const message = typeof req.input === "string" ? req.input : JSON.stringify(req.input);
    const stub = conversationStub(env, principal.orgId, agent.id, req.conversationId);
    return unwrap(await stub.send({ principal, agent, conversationId: req.conversationId, message, stream: req.stream }));
  }
  const turn = await prepareTurn(ctx, principal, ctx.agents(principal), { agent, input: req.input });
  if (req.stream) return { stream: sseStream(turn.events) };
  return { result: { ...(await collectTurn(turn.events, toApiError)), model: turn.modelId } };
}
