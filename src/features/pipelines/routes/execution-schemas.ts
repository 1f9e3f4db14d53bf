// OpenAPI schemas of execution results, shared by the execute and webhook routes.
import { z } from "@hono/zod-openapi";

const NodeErrorSchema = z.object({ code: z.string(), message: z.string(), node_id: z.string(), node_type: z.string() }).openapi("NodeError");

export const NodeResultSchema = z
  .object({
    status: z.enum(["pending", "waiting", "completed", "failed", "skipped", "reused"]),
    duration_ms: z.number().int(),
    node_type: z.string(),
    attempts: z.number().int(),
    error: NodeErrorSchema.optional(),
    would_write: z.array(z.object({ target: z.string(), payload: z.unknown() })).optional().openapi({ description: "Test mode: what the node would have written" }),
  })
  .openapi("NodeResult");

export const ExecutionResponseSchema = z
  .object({
    execution_id: z.string(),
    status: z.enum(["running", "waiting", "completed", "failed"]),
    pipeline_id: z.string(),
    pipeline_version: z.number().int(),
    test_mode: z.boolean(),
    outputs: z.unknown().optional(),
    node_results: z.record(z.string(), NodeResultSchema).optional(),
    error: NodeErrorSchema.optional(),
    duration_ms: z.number().int().optional(),
    retry_of: z.string().optional(),
  })
  .openapi("ExecutionResult");
