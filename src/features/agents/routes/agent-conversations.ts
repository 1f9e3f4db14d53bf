// /api/agents/{id}/conversations: conversations with an agent; each one's
// history lives in its own Durable Object, which serializes concurrent sends.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import {
  ConversationParam,
  ConversationSchema,
  IdParam,
  MessageSchema,
  SendMessageBody,
  StartConversationBody,
  TurnSchema,
  presentConversation,
  presentMessage,
} from "../schemas";
import { sendConversationMessage } from "../use-cases/chat";
import { conversationMessages, deleteConversation, getConversation, listConversations, startConversation } from "../use-cases/conversations";
import { answer } from "./agent-chat";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, newId } from "../../audit";

const tags = ["Agent conversations"];
const chatPermission = requirePermission("agents:chat");

export const agentConversationRoutes = createRouter<HttpEnv>()
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
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listConversations(c.get("ctx"), c.req.valid("param").id, limit, offset);
      return c.json({ conversations: rows.map(presentConversation), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/conversations",
      audit: audited("agent.conversation_start", newId),
      tags,
      summary: "Start a conversation",
      security,
      middleware: chatPermission,
      request: {
        params: IdParam,
        body: { required: false, content: json(StartConversationBody) },
      },
      responses: { 201: { description: "Created", content: json(ConversationSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const title = c.req.valid("json")?.title ?? "";
      return c.json(presentConversation(await startConversation(c.get("ctx"), c.get("principal"), c.req.valid("param").id, title)), 201);
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
      return c.json(presentConversation(await getConversation(c.get("ctx"), id, cid)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/conversations/{cid}",
      audit: audited("agent.conversation_delete", { param: "cid" }),
      tags,
      summary: "Delete a conversation and its messages",
      security,
      middleware: chatPermission,
      request: { params: ConversationParam },
      responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { id, cid } = c.req.valid("param");
      await deleteConversation(c.get("ctx"), id, cid);
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
      const { id, cid } = c.req.valid("param");
      const { limit, offset } = c.req.valid("query");
      const page = await conversationMessages(c.get("ctx"), id, cid, limit, offset);
      return c.json({ messages: page.messages.map(presentMessage), total_count: page.total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "sendConversationMessage", path: "/{id}/conversations/{cid}/messages",
      audit: audited("agent.chat", byId),
      tags,
      summary: "Send a message; the agent answers with the conversation's history (stream true: SSE)",
      security,
      middleware: chatPermission,
      request: {
        params: ConversationParam,
        body: {
          required: true,
          content: json(SendMessageBody),
        },
      },
      responses: {
        200: { description: "The answer", content: { ...json(TurnSchema), "text/event-stream": { schema: z.string() } } },
        ...commonErrors,
        ...notFoundError,
      },
    }),
    async (c) => {
      const { id, cid } = c.req.valid("param");
      const outcome = await sendConversationMessage(c.get("ctx"), c.get("principal"), id, cid, c.req.valid("json"));
      return answer(c, outcome, { conversation_id: cid });
    },
  );
