// The operations API's zod schemas (validation and OpenAPI).
import { z } from "@hono/zod-openapi";

export const HealthSchema = z.object({ status: z.literal("ok"), time: z.string() }).openapi("Health");

export const ReadinessSchema = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    time: z.string(),
    checks: z.array(z.object({ name: z.string().openapi({ example: "d1:SHARD_0" }), ok: z.boolean(), ms: z.number(), error: z.string().optional() })),
  })
  .openapi("Readiness");
