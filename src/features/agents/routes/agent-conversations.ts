// /api/agents/{id}/conversations: conversations with an agent; each one's
// history lives in its own Durable Object, which serializes concurrent sends.
import { createRoute, z } from "@hono/zod-openapi";
import { agentStore, loadAgent } from "../access";
import { IdParam, TurnSchema } from "../api-schemas";
import { chat, conversationStub } from "../chat";
import type { AgentConversationRow } from "../tables";
import { notFound } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";
import { answer } from "./agent-chat";

const tags = ["Agent conversations"];
const chatPermission = requirePermission("agents:chat");

const ConversationSchema = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    title: z.string(),
    message_count: z.number().int(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AgentConversation");

const MessageSchema = z
  .object({
    id: z.number().int(),
    role: z.enum(["user", "assistant"]),
    content: z.string(),
    reasoning_steps: z.array(z.record(z.string(), z.unknown())).nullable(),
    created_at: z.string(),
  })
  .openapi("AgentMessage");

const ConversationParam = IdParam.extend({ cid: z.string().min(1).max(100).openapi({ param: { name: "cid", in: "path" } }) });

const present = (r: AgentConversationRow) => ({
  id: r.id,
  agent_id: r.agentId,
  title: r.title,
  message_count: r.messageCount,
  created_by: r.createdBy,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

async function loadConversation(c: { env: Parameters<typeof loadAgent>[0] }, principal: Parameters<typeof loadAgent>[1], id: string, cid: string) {
  const agent = await loadAgent(c.env, principal, id);
  const conv = await agentStore(c.env).getConversation(principal.orgId, agent.id, cid);
  if (!conv) throw notFound(`Conversation ${cid} not found`, "CONVERSATION_NOT_FOUND");
  return { agent, conv };
}

export const agentConversationRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/conversations",
      tags,
      summary: "List the agent's conversations, most recently active first",
      security,
      middleware: chatPermission,
      request: { params: IdParam, query: PageQuery },
      responses: {
        200: {
          description: "Conversations",
          content: json(pageOf("conversations", ConversationSchema)),
        },
        ...commonErrors,
        ...notFoundError,
      },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await agentStore(c.env).listConversations(principal.orgId, agent.id, limit, offset);
      return c.json({ conversations: rows.map(present), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/conversations",
      tags,
      summary: "Start a conversation",
      security,
      middleware: chatPermission,
      request: {
        params: IdParam,
        body: { required: false, content: json(z.object({ title: z.string().max(200).optional() }).strict()) },
      },
      responses: { 201: { description: "Created", content: json(ConversationSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
      const title = c.req.valid("json")?.title ?? "";
      const row = await agentStore(c.env).createConversation(principal.orgId, agent.id, title, principal.keyId);
      return c.json(present(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/conversations/{cid}",
      tags,
      summary: "Get a conversation",
      security,
      middleware: chatPermission,
      request: { params: ConversationParam },
      responses: { 200: { description: "Conversation", content: json(ConversationSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { id, cid } = c.req.valid("param");
      const { conv } = await loadConversation(c, c.get("principal"), id, cid);
      return c.json(present(conv), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/conversations/{cid}",
      tags,
      summary: "Delete a conversation and its messages",
      security,
      middleware: chatPermission,
      request: { params: ConversationParam },
      responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const principal = c.get("principal");
      const { id, cid } = c.req.valid("param");
      const { agent } = await loadConversation(c, principal, id, cid);
      await conversationStub(c.env, principal.orgId, agent.id, cid).destroy(principal.orgId);
      await agentStore(c.env).deleteConversation(principal.orgId, agent.id, cid);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/conversations/{cid}/messages",
      tags,
      summary: "List a conversation's messages, oldest first",
      security,
      middleware: chatPermission,
      request: { params: ConversationParam, query: PageQuery },
      responses: {
        200: {
          description: "Messages",
          content: json(pageOf("messages", MessageSchema)),
        },
        ...commonErrors,
        ...notFoundError,
      },
    }),
    async (c) => {
      const principal = c.get("principal");
      const { id, cid } = c.req.valid("param");
      const { agent } = await loadConversation(c, principal, id, cid);
      const { limit, offset } = c.req.valid("query");
      const page = await conversationStub(c.env, principal.orgId, agent.id, cid).messages(principal.orgId, limit, offset);
      const messages = page.messages.map((m) => ({
        ...m,
        reasoning_steps: m.reasoning_steps ? (JSON.parse(m.reasoning_steps) as Record<string, unknown>[]) : null,
      }));
      return c.json({ messages, total_count: page.total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/conversations/{cid}/messages",
      tags,
      summary: "Send a message; the agent answers with the conversation's history (stream true: SSE)",
      security,
      middleware: chatPermission,
      request: {
        params: ConversationParam,
        body: {
          required: true,
          content: json(z.object({ message: z.string().min(1).max(32_000), stream: z.boolean().default(false) }).strict()),
        },
      },
      responses: {
        200: { description: "The answer", content: { ...json(TurnSchema), "text/event-stream": { schema: z.string() } } },
        ...commonErrors,
        ...notFoundError,
      },
    }),
    async (c) => {
      const principal = c.get("principal");
      const { id, cid } = c.req.valid("param");
      const { agent } = await loadConversation(c, principal, id, cid);
      const body = c.req.valid("json");
      const outcome = await chat(c.env, principal, agent, { input: body.message, stream: body.stream, conversationId: cid });
      return answer(c, outcome, { conversation_id: cid });
    },
  );
