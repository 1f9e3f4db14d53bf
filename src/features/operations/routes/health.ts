// Unauthenticated liveness/readiness: answers 200 when D1 answers.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { allDatabases } from "../../../platform/shards";
import { HealthSchema } from "../schemas";
import { checkHealth } from "../use-cases/health";

export const healthRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/health",
    tags: ["Service"],
    summary: "Service health (no authentication)",
    security: [],
    responses: { 200: { description: "Healthy", content: { "application/json": { schema: HealthSchema } } } },
  }),
  async (c) => c.json(await checkHealth(allDatabases(c.env)), 200),
);
