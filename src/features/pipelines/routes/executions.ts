// /api/execute, /api/execute/retry, /api/execute/step, /api/executions and
// /api/stats: running pipelines and reading their records.
import { createRoute, z } from "@hono/zod-openapi";
import { apiErrorOf } from "../../../platform/durable-objects/failure";
import type { StepResult, StepView } from "../step-session";
import { database } from "../../../platform/db/client";
import type { ExecutionRow } from "../tables";
import type { Env } from "../../../platform/env";
import { notFound } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security, tooLargeError } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy/middleware/auth";
import type { RunState } from "../engine";
import { executionRunner, planFor, runnableVersion } from "../execution-service";
import { execute } from "../../../service-wiring";
import { ExecutionStore } from "../execution-store";
import { retryFromNode } from "../retry";
import { orgObject } from "../../../platform/durable-objects/object-names";
import { ExecutionResponseSchema } from "./execution-schemas";

const ExecuteBody = z
  .object({
    pipeline_id: z.string().uuid(),
    inputs: z.record(z.string(), z.unknown()).default({}).openapi({ description: "Passed to the trigger (input) node" }),
    async: z.boolean().default(false),
    test_mode: z.boolean().default(false).openapi({ description: "true: nothing is written to external systems or the FHIR store; writes are reported instead" }),
  })
  .strict()
  .openapi("ExecuteRequest");

const RetryBody = z
  .object({
    execution_id: z.string(),
    node_id: z.string(),
    inputs: z.record(z.string(), z.unknown()).optional().openapi({ description: "Input port values for node_id; default: the reused upstream outputs" }),
    async: z.boolean().default(false),
  })
  .strict()
  .openapi("RetryRequest");

const StepBody = z
  .object({ pipeline_id: z.string().uuid(), inputs: z.record(z.string(), z.unknown()).default({}), test_mode: z.boolean().default(false) })
  .strict()
  .openapi("StepStartRequest");
const StepAdvanceBody = z
  .object({ node_outputs: z.record(z.string(), z.unknown()).optional().openapi({ description: "Outputs to use for the current node instead of running it, by port" }) })
  .strict()
  .openapi("StepAdvanceRequest");

const StepViewSchema = z
  .object({
    session_id: z.string(),
    status: z.enum(["waiting", "completed", "failed"]),
    current_node: z.string().nullable(),
    expires_at: z.string(),
    step: z.record(z.string(), z.unknown()).optional().openapi({ description: "The node just run: node_id, status, inputs, outputs, logs, error" }),
    outputs: z.unknown().optional(),
    node_results: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("StepSession");

const ExecutionSummary = z
  .object({
    execution_id: z.string(),
    pipeline_id: z.string(),
    pipeline_version: z.number().int(),
    status: z.string(),
    trigger: z.string(),
    mode: z.enum(["sync", "async"]),
    test_mode: z.boolean(),
    retry_of: z.string().nullable(),
    retry_from_node: z.string().nullable(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    error: z.object({ code: z.string(), message: z.string(), node_id: z.string().nullable(), node_type: z.string().nullable() }).nullable(),
  })
  .openapi("ExecutionSummary");
const ExecutionDetail = ExecutionSummary.extend({
  inputs: z.unknown(),
  outputs: z.unknown(),
  nodes: z.record(z.string(), z.unknown()).openapi({ description: "Per node: status, inputs, outputs, logs, error, timing, attempts" }),
}).openapi("Execution");

const summary = (r: ExecutionRow): z.infer<typeof ExecutionSummary> => ({
  execution_id: r.id,
  pipeline_id: r.pipelineId,
  pipeline_version: r.pipelineVersion,
  status: r.status,
  trigger: r.trigger,
  mode: r.mode,
  test_mode: r.testMode,
  retry_of: r.retryOf,
  retry_from_node: r.retryFromNode,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
  duration_ms: r.durationMs,
  error: r.errorCode ? { code: r.errorCode, message: r.errorMessage ?? "", node_id: r.errorNodeId, node_type: r.errorNodeType } : null,
});

const tags = ["Execution"];
const run = requirePermission("pipelines:execute");
const read = requirePermission("pipelines:read");
const executions = (env: Env) => new ExecutionStore(database(env.DB), env);
const stepSession = (env: Env, orgId: string, sessionId: string) => orgObject(env.STEP_SESSION, orgId, sessionId);
/** A step session's answer: its view, or the API error it refused the step with. */
const viewOf = (result: StepResult): StepView => {
  if (!result.ok) throw apiErrorOf(result.error);
  return result.view;
};
const resultResponses = { 200: { description: "Finished (sync)", content: json(ExecutionResponseSchema) }, 202: { description: "Started (async)", content: json(ExecutionResponseSchema) } };

export const executionRoutes = createRouter()
  .openapi(
    createRoute({ method: "post", path: "/execute", tags, summary: "Execute a pipeline (sync or async)", description: "Non-test executions need a deployed pipeline and run its deployed version; test_mode runs the latest version. 429 beyond the org's concurrent executions.", security, middleware: run, request: { body: { required: true, content: json(ExecuteBody) } }, responses: { ...resultResponses, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError } }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await execute(c.env, c.get("principal").orgId, {
        pipelineId: body.pipeline_id,
        inputs: body.inputs,
        async: body.async,
        testMode: body.test_mode,
        trigger: { kind: "manual" },
        concurrencyLimit: c.get("limits").concurrentExecutions,
      });
      return c.json(result, body.async ? 202 : 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/execute/retry", tags, summary: "Retry from a node: a new linked execution reusing earlier successful outputs", security, middleware: run, request: { body: { required: true, content: json(RetryBody) } }, responses: { ...resultResponses, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError } }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await retryFromNode(c.env, c.get("principal").orgId, {
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
    createRoute({ method: "post", path: "/execute/step", tags, summary: "Open a step-by-step session (status waiting at the first node)", security, middleware: run, request: { body: { required: true, content: json(StepBody) } }, responses: { 201: { description: "Session", content: json(StepViewSchema) }, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError } }),
    async (c) => {
      const body = c.req.valid("json");
      const orgId = c.get("principal").orgId;
      const { version, definition } = await runnableVersion(c.env, orgId, body.pipeline_id, body.test_mode);
      const plan = planFor(orgId, body.pipeline_id, version, definition);
      const sessionId = crypto.randomUUID();
      const opened = await stepSession(c.env, orgId, sessionId).open({
        orgId,
        executionId: sessionId,
        pipelineId: body.pipeline_id,
        version,
        definition,
        testMode: body.test_mode,
        trigger: { kind: "step" },
        startedAt: new Date().toISOString(),
        state: plan.initialState(body.inputs),
      });
      return c.json(viewOf(opened) as z.infer<typeof StepViewSchema>, 201);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/execute/step/{sessionId}", tags, summary: "Run (or supply outputs for) the current node and advance", security, middleware: run, request: { params: z.object({ sessionId: z.string().openapi({ param: { name: "sessionId", in: "path" } }) }), body: { required: false, content: json(StepAdvanceBody) } }, responses: { 200: { description: "Step result", content: json(StepViewSchema) }, ...commonErrors, ...notFoundError, ...tooLargeError } }),
    async (c) => {
      const { sessionId } = c.req.valid("param");
      const body: z.infer<typeof StepAdvanceBody> = c.req.valid("json") ?? {};
      const orgId = c.get("principal").orgId;
      const result = await stepSession(c.env, orgId, sessionId).step(orgId, body.node_outputs);
      if (!result) throw notFound(`Step session ${sessionId} not found or expired`, "STEP_SESSION_NOT_FOUND");
      return c.json(viewOf(result) as z.infer<typeof StepViewSchema>, 200);
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
      request: { query: PageQuery.extend({ pipeline_id: z.string().optional(), status: z.string().optional() }) },
      responses: { 200: { description: "Page of executions", content: json(pageOf("executions", ExecutionSummary)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset, pipeline_id, status } = c.req.valid("query");
      const { rows, total } = await executions(c.env).list(c.get("principal").orgId, { pipelineId: pipeline_id, status }, limit, offset);
      return c.json({ executions: rows.map(summary), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/executions/{id}", tags, summary: "Full execution record: per-node inputs, outputs, timing, logs, errors", security, middleware: read, request: { params: z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) }) }, responses: { 200: { description: "Execution", content: json(ExecutionDetail) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      const store = executions(c.env);
      const row = await store.get(orgId, c.req.valid("param").id);
      const record = await store.record(row);
      // A running async execution shows its live progress from its Durable Object.
      const live = !record && row.mode === "async" ? ((await executionRunner(c.env, orgId, row.id).snapshot(orgId)) as RunState | undefined) : undefined;
      return c.json({ ...summary(row), inputs: record?.inputs ?? live?.inputs ?? null, outputs: record?.outputs ?? null, nodes: record?.nodes ?? live?.nodes ?? {} }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/stats",
      tags,
      summary: "Success rate, average duration and error distribution by node type",
      security,
      middleware: read,
      request: {
        query: z.object({
          pipeline_id: z.string().optional(),
          since: z.string().datetime().optional(),
          until: z.string().datetime().optional(),
          include_test: z.enum(["true", "false"]).default("false"),
        }),
      },
      responses: {
        200: {
          description: "Aggregates over the organization's executions",
          content: json(
            z.object({
              total_executions: z.number().int(),
              completed: z.number().int(),
              failed: z.number().int(),
              running: z.number().int(),
              success_rate: z.number().nullable(),
              average_duration_ms: z.number().int().nullable(),
              error_distribution: z.record(z.string(), z.object({ count: z.number().int(), codes: z.record(z.string(), z.number().int()) })),
            }),
          ),
        },
        ...commonErrors,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const stats = await executions(c.env).stats(c.get("principal").orgId, { pipelineId: q.pipeline_id, since: q.since, until: q.until, includeTest: q.include_test === "true" });
      return c.json(stats, 200);
    },
  );
