// POST /api/agents/{id}/chat (JSON or Server-Sent Events) and the public
// POST /api/v1/agents/{id}/invoke for deployed agents.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { loadAgent } from "../access";
import { IdParam, TurnSchema } from "../api-schemas";
import { type ChatOutcome, chat } from "../chat";
import { SSE_HEADERS } from "../sse";
import { agentExecuteScope } from "../../tenancy/auth/permissions";
import type { AppEnv } from "../../../app-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, notFoundError, security, json } from "../../../platform/http/schemas";
import { requirePermission, requirePermissionOrScope } from "../../tenancy/middleware/auth";

const tags = ["Agents"];

const errors503 = {
  503: {
    description: "No usable model (MODEL_UNAVAILABLE)",
    content: json(z.object({ error: z.object({ code: z.string(), message: z.string(), status: z.number() }) })),
  },
};

export const ChatBody = z
  .object({
    message: z.string().min(1).max(32_000),
    stream: z.boolean().default(false),
    conversation_id: z.string().min(1).max(100).optional().openapi({
      description: "Continue a conversation (its history is sent to the model and the exchange is stored)",
    }),
  })
  .strict()
  .openapi("AgentChat");

const SSE_DESCRIPTION =
  "stream false: JSON with response and reasoning_steps. stream true: text/event-stream with events " +
  "thinking {content}, tool_call {tool, params}, tool_result {tool, result}, message {content}, done {}, or error {code, message, status}.";

/** Answers a chat outcome; route-typed as JSON, a stream is sent as it is. */
export function answer(c: Context<AppEnv>, outcome: ChatOutcome, extra: Record<string, unknown> = {}) {
  if ("stream" in outcome) return c.body(outcome.stream, 200, SSE_HEADERS) as unknown as ReturnType<typeof c.json<z.infer<typeof TurnSchema>, 200>>;
  return c.json({ ...outcome.result, model: outcome.result.model ?? "", ...extra }, 200);
}

export const agentChatRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/{id}/chat",
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
      ...errors503,
    },
  }),
  async (c) => {
    const principal = c.get("principal");
    const agent = await loadAgent(c.env, principal, c.req.valid("param").id);
    const body = c.req.valid("json");
    const outcome = await chat(c.env, principal, agent, {
      input: body.message,
      stream: body.stream,
      conversationId: body.conversation_id,
    });
    return answer(c, outcome, body.conversation_id ? { conversation_id: body.conversation_id } : {});
  },
);

const InvokeBody = z
  .object({ input_data: z.record(z.string(), z.unknown()).openapi({ description: "Replaces {{input}} in the prompt template" }) })
  .strict()
  .openapi("AgentInvoke");

export const publicAgentRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/{id}/invoke",
    tags,
    summary: "Invoke a deployed agent (API key with scope agent/<id>:execute, or agents:invoke)",
    security,
    middleware: requirePermissionOrScope("agents:invoke", (c) => agentExecuteScope(c.req.param("id") ?? "")),
    request: { params: IdParam, body: { required: true, content: json(InvokeBody) } },
    responses: {
      200: { description: "The agent's answer", content: json(TurnSchema.extend({ agent_id: z.string(), output: z.string() })) },
      ...commonErrors,
      ...notFoundError,
      ...conflictError,
      ...errors503,
    },
  }),
  async (c) => {
    const principal = c.get("principal");
    const agent = await loadAgent(c.env, principal, c.req.valid("param").id, { deployed: true });
    const outcome = await chat(c.env, principal, agent, { input: c.req.valid("json").input_data, stream: false });
    if ("stream" in outcome) throw new Error("invoke never streams");
    return c.json({ agent_id: agent.id, output: outcome.result.response, ...outcome.result, model: outcome.result.model ?? "" }, 200);
  },
);
