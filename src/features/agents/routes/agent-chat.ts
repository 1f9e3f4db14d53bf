// POST /api/agents/{id}/chat (JSON or Server-Sent Events) and the public
// POST /api/v1/agents/{id}/invoke for deployed agents.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ChatBody, IdParam, InvokeBody, InvokeResultSchema, ModelUnavailableError, TurnSchema } from "../schemas";
import { SSE_HEADERS } from "../sse";
import { type ChatOutcome, chatWithAgent, invokeAgent } from "../use-cases/chat";
import { agentExecuteScope } from "../../tenancy";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, notFoundError, security, json } from "../../../platform/http/schemas";
import { requirePermission, requirePermissionOrScope } from "../../tenancy";
import { audited, byId } from "../../audit";

const tags = ["Agents"];

const SSE_DESCRIPTION =
  "stream false: JSON with response and reasoning_steps. stream true: text/event-stream with events " +
  "thinking {content}, tool_call {tool, params}, tool_result {tool, result}, message {content}, done {}, or error {code, message, status}.";

/** Answers a chat outcome; route-typed as JSON, a stream is sent as it is. */
export function answer(c: Context<HttpEnv>, outcome: ChatOutcome, extra: Record<string, unknown> = {}) {
  if ("stream" in outcome) return c.body(outcome.stream, 200, SSE_HEADERS) as unknown as ReturnType<typeof c.json<z.infer<typeof TurnSchema>, 200>>;
  return c.json({ ...outcome.result, model: outcome.result.model ?? "", ...extra }, 200);
}

export const agentChatRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "post",
    operationId: "chatWithAgent", path: "/{id}/chat",
    audit: audited("agent.chat", byId),
    tags,
    summary: "Chat with an agent (tool-calling loop); stream true answers Server-Sent Events",
    security,
    middleware: requirePermission("agents:chat"),
    request: { params: IdParam, body: { required: true, content: json(ChatBody) } },
    responses: {
      200: {
        description: SSE_DESCRIPTION,
        content: { ...json(TurnSchema), "text/event-stream": { schema: z.string() } },
      },
      ...commonErrors,
      ...notFoundError,
      ...ModelUnavailableError,
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const outcome = await chatWithAgent(c.get("ctx"), c.get("principal"), c.req.valid("param").id, {
      message: body.message,
      stream: body.stream,
      conversationId: body.conversation_id,
    });
    return answer(c, outcome, body.conversation_id ? { conversation_id: body.conversation_id } : {});
  },
);

export const publicAgentRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "post",
    path: "/{id}/invoke",
    audit: audited("agent.invoke", byId),
    tags,
    summary: "Invoke a deployed agent (API key with scope agent/<id>:execute, or agents:invoke)",
    security,
    middleware: requirePermissionOrScope("agents:invoke", (c) => agentExecuteScope(c.req.param("id") ?? "")),
    request: { params: IdParam, body: { required: true, content: json(InvokeBody) } },
    responses: {
      200: { description: "The agent's answer", content: json(InvokeResultSchema) },
      ...commonErrors,
      ...notFoundError,
      ...conflictError,
      ...ModelUnavailableError,
    },
  }),
  async (c) => {
    const { agent, result } = await invokeAgent(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json").input_data);
    return c.json({ agent_id: agent.id, output: result.response, ...result, model: result.model ?? "" }, 200);
  },
);
