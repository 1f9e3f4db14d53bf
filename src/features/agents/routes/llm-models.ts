// GET /api/llm-models: the language models the caller's organization can use.
import { createRoute, z } from "@hono/zod-openapi";
import { modelSources } from "../access";
import { listModels } from "../models";
import { agentServicesFor } from "../../../service-wiring";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";

const ModelSchema = z
  .object({
    id: z.string().openapi({ description: "The value for model_config.model" }),
    name: z.string(),
    provider: z.enum(["workers-ai", "openai-compatible"]),
    endpoint_id: z.string(),
    capabilities: z.object({ tool_calling: z.boolean(), streaming: z.boolean() }),
    context_window: z.number().int(),
    pricing_tier: z.enum(["free", "low", "standard", "premium", "self-hosted"]),
  })
  .openapi("LlmModel");

export const llmModelRoutes = createRouter().openapi(
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
  async (c) => {
    const models = listModels(await modelSources(c.env, agentServicesFor(c.env, c.get("principal"))));
    return c.json({ models, total_count: models.length }, 200);
  },
);
