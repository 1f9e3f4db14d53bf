// Running pipelines and reading their records: execute (sync or async), retry from a
// node, step-by-step sessions (one StepSession Durable Object each), the execution
// history with live progress of running async executions, and aggregate statistics.
import type { OrgContext } from "../../../platform/org-context";
import { apiErrorOf } from "../../../platform/durable-objects/failure";
import { orgObject } from "../../../platform/durable-objects/object-names";
import type { Env } from "../../../platform/env";
import { notFound } from "../../../platform/errors";
import type { RunState } from "../engine";
import { type ExecutionResponse, executionRunner, planFor, runnableVersion } from "../execution-service";
import { type ExecutionFilter, ExecutionStore } from "../execution-store";
import { type RetryRequest, retryFromNode } from "../retry";
import type { StepResult, StepView } from "../step-session";
import type { ExecutionRow } from "../tables";

export interface RunRequest {
  pipelineId: string;
  inputs: Record<string, unknown>;
  async: boolean;
  testMode: boolean;
  concurrencyLimit: number;
}

/** A manual run: the deployed version, or in test mode the latest. */
export function executePipeline(ctx: OrgContext, req: RunRequest): Promise<ExecutionResponse> {
  return ctx.execute({ ...req, trigger: { kind: "manual" } });
}

/** A new execution linked to the original, reusing its successful outputs outside the re-run region. */
export function retryExecution(ctx: OrgContext, req: RetryRequest): Promise<ExecutionResponse> {
  return retryFromNode(ctx, req);
}

const stepSession = (env: Env, orgId: string, sessionId: string) => orgObject(env.STEP_SESSION, orgId, sessionId);

/** A step session's answer: its view, or the API error it refused the step with. */
const viewOf = (result: StepResult): StepView => {
  if (!result.ok) throw apiErrorOf(result.error);
  return result.view;
};

/** Opens a session on the runnable version, waiting at its first node. */
export async function startStepSession(ctx: OrgContext, req: Omit<RunRequest, "async" | "concurrencyLimit">): Promise<StepView> {
  const { env, orgId } = ctx;
  const { version, definition } = await runnableVersion(ctx, req.pipelineId, req.testMode);
  const plan = planFor(ctx, req.pipelineId, version, definition);
  const sessionId = crypto.randomUUID();
  const opened = await stepSession(env, orgId, sessionId).open({
    orgId,
    executionId: sessionId,
    pipelineId: req.pipelineId,
    version,
    definition,
    testMode: req.testMode,
    trigger: { kind: "step" },
    startedAt: new Date().toISOString(),
    state: plan.initialState(req.inputs),
  });
  return viewOf(opened);
}

/** Runs the current node, or takes `nodeOutputs` as its outputs, and advances; 404 for an unknown or expired session. */
export async function advanceStepSession(ctx: OrgContext, sessionId: string, nodeOutputs?: Record<string, unknown>): Promise<StepView> {
  const { env, orgId } = ctx;
  const result = await stepSession(env, orgId, sessionId).step(orgId, nodeOutputs);
  if (!result) throw notFound(`Step session ${sessionId} not found or expired`, "STEP_SESSION_NOT_FOUND");
  return viewOf(result);
}

export function listExecutions(ctx: OrgContext, filter: ExecutionFilter, limit: number, offset: number): Promise<{ rows: ExecutionRow[]; total: number }> {
  const { db, env, orgId } = ctx;
  return new ExecutionStore(db, env).list(orgId, filter, limit, offset);
}

export interface ExecutionDetails {
  row: ExecutionRow;
  inputs: unknown;
  outputs: unknown;
  nodes: Record<string, unknown>;
}

/** The full record; a running async execution shows its live progress from its Durable Object. */
export async function getExecution(ctx: OrgContext, id: string): Promise<ExecutionDetails> {
  const { db, env, orgId } = ctx;
  const store = new ExecutionStore(db, env);
  const row = await store.get(orgId, id);
  const record = await store.record(row);
  const live = !record && row.mode === "async" ? ((await executionRunner(env, orgId, row.id).snapshot(orgId)) as RunState | undefined) : undefined;
  return { row, inputs: record?.inputs ?? live?.inputs ?? null, outputs: record?.outputs ?? null, nodes: record?.nodes ?? live?.nodes ?? {} };
}

export function executionStats(ctx: OrgContext, filter: ExecutionFilter) {
  const { db, env, orgId } = ctx;
  return new ExecutionStore(db, env).stats(orgId, filter);
}
