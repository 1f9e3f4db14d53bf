// POST /copilot/chat: JSON, or Server-Sent Events with stream true.
import { createRoute, type z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { json, security } from "../../../platform/http/schemas";
import { SSE_HEADERS } from "../../agents";
import { requirePermission } from "../../tenancy";
import { ChatBody, ChatResponse } from "../schemas";
import { copilotChat } from "../use-cases/chat";
import { modelErrors, SSE_CONTENT, tags } from "./responses";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited } from "../../audit";

const EVENTS =
  "stream false: JSON with response, reasoning_steps, pipeline (the last valid proposed definition) and validation. stream true: text/event-stream with events " +
  "thinking {content}, tool_call {tool, params}, tool_result {tool, result, is_error}, validation {valid, errors, warnings}, " +
  "pipeline {name, definition, warnings, pipeline_id, base_version}, message {content}, then done {} or error {code, message, status}.";

export const chatRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "post",
    path: "/chat",
    operationId: "copilotChat",
    // Its tools act as the caller (FHIR searches, test-mode executions), as an agent's chat does.
    audit: audited("copilot.chat"),
    tags,
    summary: "Chat with the copilot (tools: catalog, node schema, validate, FHIR search, test-mode execution)",
    security,
    middleware: requirePermission("pipelines:manage"),
    request: { body: { required: true, content: json(ChatBody) } },
    responses: { 200: { description: EVENTS, content: { ...json(ChatResponse), ...SSE_CONTENT } }, ...modelErrors },
  }),
  async (c) => {
    const outcome = await copilotChat(c.get("ctx"), c.get("principal"), c.req.valid("json"));
    if ("stream" in outcome) return c.body(outcome.stream, 200, SSE_HEADERS) as unknown as ReturnType<typeof c.json<z.infer<typeof ChatResponse>, 200>>;
    return c.json(outcome.result as z.infer<typeof ChatResponse>, 200);
  },
);
