// The operations API's zod schemas (validation and OpenAPI).
import { z } from "@hono/zod-openapi";

export const HealthSchema = z.object({ status: z.literal("ok"), time: z.string() }).openapi("Health");
