// Unauthenticated liveness/readiness: answers 200 when D1 answers.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";

const HealthSchema = z.object({ status: z.literal("ok"), time: z.string() }).openapi("Health");

export const healthRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/health",
    tags: ["Service"],
    summary: "Service health (no authentication)",
    responses: { 200: { description: "Healthy", content: { "application/json": { schema: HealthSchema } } } },
  }),
  async (c) => {
    await c.env.DB.prepare("SELECT 1").first();
    return c.json({ status: "ok" as const, time: new Date().toISOString() }, 200);
  },
);
