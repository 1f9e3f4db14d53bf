// /api/execute, /api/execute/retry, /api/execute/step, /api/executions and
// /api/stats: running pipelines and reading their records.
import { createRoute, type z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, security, tooLargeError } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import {
  ExecuteBody,
  ExecutionDetail,
  ExecutionIdParam,
  ExecutionListQuery,
  ExecutionResponseSchema,
  ExecutionSummary,
  RetryBody,
  SessionParam,
  StatsQuery,
  StatsSchema,
  StepAdvanceBody,
  StepBody,
  StepViewSchema,
  presentExecutionSummary,
} from "../schemas";
import { advanceStepSession, executePipeline, executionStats, getExecution, listExecutions, retryExecution, startStepSession } from "../use-cases/executions";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited } from "../../audit";

const tags = ["Execution"];
const run = requirePermission("pipelines:execute");
const read = requirePermission("pipelines:read");
const resultResponses = { 200: { description: "Finished (sync)", content: json(ExecutionResponseSchema) }, 202: { description: "Started (async)", content: json(ExecutionResponseSchema) } };

export const executionRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "post", path: "/execute", audit: audited("execution.start", { response: "execution_id" }), tags, summary: "Execute a pipeline (sync or async)", description: "Non-test executions need a deployed pipeline and run its deployed version; test_mode runs the latest version. 429 beyond the org's concurrent executions.", security, middleware: run, request: { body: { required: true, content: json(ExecuteBody) } }, responses: { ...resultResponses, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError } }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await executePipeline(c.get("ctx"), {
        pipelineId: body.pipeline_id,
        inputs: body.inputs,
        async: body.async,
        testMode: body.test_mode,
        concurrencyLimit: c.get("limits").concurrentExecutions,
      });
      return c.json(result, body.async ? 202 : 200);
    },
  )
  .openapi(
    createRoute({ method: "post", operationId: "retryExecution", path: "/execute/retry", audit: audited("execution.retry", { response: "execution_id" }), tags, summary: "Retry from a node: a new linked execution reusing earlier successful outputs", security, middleware: run, request: { body: { required: true, content: json(RetryBody) } }, responses: { ...resultResponses, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError } }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await retryExecution(c.get("ctx"), {
        executionId: body.execution_id,
        nodeId: body.node_id,
        inputs: body.inputs,
        async: body.async,
        concurrencyLimit: c.get("limits").concurrentExecutions,
      });
      return c.json(result, body.async ? 202 : 200);
    },
  )
  .openapi(
    createRoute({ method: "post", operationId: "startStepSession", path: "/execute/step", audit: audited("execution.step", { response: "session_id" }), tags, summary: "Open a step-by-step session (status waiting at the first node)", security, middleware: run, request: { body: { required: true, content: json(StepBody) } }, responses: { 201: { description: "Session", content: json(StepViewSchema) }, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError } }),
    async (c) => {
      const body = c.req.valid("json");
      const view = await startStepSession(c.get("ctx"), { pipelineId: body.pipeline_id, inputs: body.inputs, testMode: body.test_mode });
      return c.json(view as z.infer<typeof StepViewSchema>, 201);
    },
  )
  .openapi(
    createRoute({ method: "post", operationId: "advanceStepSession", path: "/execute/step/{sessionId}", audit: audited("execution.step", { param: "sessionId" }), tags, summary: "Run (or supply outputs for) the current node and advance", security, middleware: run, request: { params: SessionParam, body: { required: false, content: json(StepAdvanceBody) } }, responses: { 200: { description: "Step result", content: json(StepViewSchema) }, ...commonErrors, ...notFoundError, ...tooLargeError } }),
    async (c) => {
      const { sessionId } = c.req.valid("param");
      const body: z.infer<typeof StepAdvanceBody> = c.req.valid("json") ?? {};
      const view = await advanceStepSession(c.get("ctx"), sessionId, body.node_outputs);
      return c.json(view as z.infer<typeof StepViewSchema>, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/executions",
      tags,
      summary: "Execution history, newest first",
      security,
      middleware: read,
      request: { query: ExecutionListQuery },
      responses: { 200: { description: "Page of executions", content: json(pageOf("executions", ExecutionSummary)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset, pipeline_id, status, since, until } = c.req.valid("query");
      const { rows, total } = await listExecutions(c.get("ctx"), { pipelineId: pipeline_id, status, since, until }, limit, offset);
      return c.json({ executions: rows.map(presentExecutionSummary), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/executions/{id}", tags, summary: "Full execution record: per-node inputs, outputs, timing, logs, errors", security, middleware: read, request: { params: ExecutionIdParam }, responses: { 200: { description: "Execution", content: json(ExecutionDetail) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { row, ...details } = await getExecution(c.get("ctx"), c.req.valid("param").id);
      return c.json({ ...presentExecutionSummary(row), ...details }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      operationId: "getStats", path: "/stats",
      tags,
      summary: "Success rate, average duration and error distribution by node type",
      security,
      middleware: read,
      request: { query: StatsQuery },
      responses: {
        200: { description: "Aggregates over the organization's executions", content: json(StatsSchema) },
        ...commonErrors,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const stats = await executionStats(c.get("ctx"), { pipelineId: q.pipeline_id, since: q.since, until: q.until, includeTest: q.include_test === "true" });
      return c.json(stats, 200);
    },
  );
