// GET /api/llm-models: the language models the caller's organization can use.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { ModelSchema, presentModels } from "../schemas";
import { availableModels } from "../use-cases/models";
import type { HttpEnv } from "../../../platform/http/http-env";

export const llmModelRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "get",
    path: "/",
    tags: ["Agents"],
    summary: "List the language models available to the organization",
    security,
    middleware: requirePermission("agents:read"),
    responses: {
      200: {
        description: "Models; empty when none is configured (agents then answer 503 MODEL_UNAVAILABLE)",
        content: json(pageOf("models", ModelSchema)),
      },
      ...commonErrors,
    },
  }),
  async (c) => c.json(presentModels(await availableModels(c.get("ctx"), c.get("principal"))), 200),
);
