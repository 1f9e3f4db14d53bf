// Starting and finishing executions: picks the version to run, takes a
// concurrency slot, records the execution, runs it here (sync) or hands it to
// its ExecutionRunner Durable Object (async), and writes the final record.
import { logger } from "../../platform/observability/log";
import { recordMetric } from "../../platform/observability/metrics";
import type { PublishedEvent } from "../../platform/events";
import type { OrgContext } from "../../platform/org-context";
import type { OrgData } from "../../platform/org-data";
import type { Write } from "../../platform/db/client";
import { isUniqueViolation } from "../../platform/db/errors";
import type { Env } from "../../platform/env";
import { ApiError, conflict } from "../../platform/errors";
import { apiErrorOf } from "../../platform/durable-objects/failure";
import { recent, recentBy } from "../../platform/recent";
import { acquireSlotOrThrow, heldSlot, releaseSlot } from "../tenancy";
import { limitsOfOrg } from "../tenancy";
import { orgObject } from "../../platform/durable-objects/object-names";
import type { Definition } from "./definition";
import { ExecutionPlan, ExecutionRun, type ExecutionStatus, type NodeError, executionOutputs, executionStatus, type NodeState, type RunState } from "./engine";
import { type ExecutionRecord, ExecutionStore, type NewExecution } from "./execution-store";
import type { TriggerInfo } from "./node-type";
import { PipelineStore } from "./pipeline-store";
import type { NodeRegistry } from "./registry";
import { type PipelineServicesFactory, pipelinePrincipal } from "./services";

/** Leases outlive a crashed holder by at most this long; durable runs renew theirs at every step. */
export const SYNC_LEASE_MS = 5 * 60_000;
export const ASYNC_LEASE_MS = 10 * 60_000;
/** Synchronous requests sleep through waits up to this long. */
export const INLINE_WAIT_MAX_MS = 30_000;

/** Everything needed to run (or resume) one execution, as plain JSON. */
export interface ExecutionJob {
  orgId: string;
  executionId: string;
  pipelineId: string;
  version: number;
  definition: Definition;
  testMode: boolean;
  trigger: TriggerInfo;
  startedAt: string;
  state: RunState;
}

export interface ExecuteRequest {
  pipelineId: string;
  inputs: unknown;
  async: boolean;
  testMode: boolean;
  trigger: TriggerInfo;
  concurrencyLimit: number;
  idempotencyKey?: string;
  retry?: { of: string; fromNode: string };
  /** Retries run a recorded version with a prepared state. */
  pinned?: { version: number; state: (plan: ExecutionPlan) => RunState };
}

/** One run of an execution batch: always synchronous, never in test mode, of the deployed version. */
export interface BatchRun {
  pipelineId: string;
  inputs: unknown;
  trigger: TriggerInfo;
  concurrencyLimit: number;
}

/**
 * Many runs, one after another, under one concurrency slot (taken at the first run, renewed as
 * it ages), with deployed versions reused for `versionTtlMs`. A run is not recorded at its start:
 * the insert of its finished record is appended to the caller's `records`, for the caller to
 * commit with its own writes in one batch (the message drain: with the message's status). For
 * callers that keep the outcome and retry on failure; a crash mid-run leaves no execution record
 * rather than one stuck "running".
 */
export interface ExecutionBatch {
  run(run: BatchRun, records: Write[]): Promise<ExecutionResponse>;
  /** Frees the batch's concurrency slot. */
  close(): Promise<void>;
}

export interface Runnable {
  version: number;
  definition: Definition;
}

export interface NodeResult {
  status: NodeState["status"];
  duration_ms: number;
  node_type: string;
  attempts: number;
  error?: NodeState["error"];
  would_write?: NodeState["would_write"];
}

export interface ExecutionResponse {
  execution_id: string;
  status: ExecutionStatus;
  pipeline_id: string;
  pipeline_version: number;
  test_mode: boolean;
  outputs?: unknown;
  node_results?: Record<string, NodeResult>;
  error?: NodeState["error"];
  duration_ms?: number;
  retry_of?: string;
}

const MAX_CACHED_PLANS = 500;
/** An execution reads its organization's expressionSteps limit at most this often (a long durable run sees a change). */
const EXPRESSION_LIMIT_TTL_MS = 60_000;
/** Compiled plans of each node registry (an isolate builds one: src/main/context.ts). */
const plansOf = new WeakMap<NodeRegistry, Map<string, ExecutionPlan>>();

/** Versions never change, so a compiled plan per org/pipeline/version is reusable. */
export function planFor(ctx: OrgContext, pipelineId: string, version: number, definition: unknown): ExecutionPlan {
  let plans = plansOf.get(ctx.nodes);
  if (!plans) {
    plans = new Map();
    plansOf.set(ctx.nodes, plans);
  }
  const key = `${ctx.orgId}:${pipelineId}:${version}`;
  let plan = plans.get(key);
  if (!plan) {
    plan = ExecutionPlan.compile(definition, ctx.nodes);
    if (plans.size >= MAX_CACHED_PLANS) plans.delete(plans.keys().next().value as string);
    plans.set(key, plan);
  }
  return plan;
}

/**
 * The version an execution runs: the deployed one; an undeployed pipeline runs
 * only in test mode (its latest version), since deploying is what makes it executable.
 */
export async function runnableVersion(data: OrgData, pipelineId: string, testMode: boolean, pinned?: number): Promise<Runnable> {
  const { orgId } = data;
  const store = new PipelineStore(data.db);
  const row = await store.get(orgId, pipelineId);
  if (!testMode && row.status !== "deployed") {
    throw conflict("Deploy the pipeline first, or run it with test_mode: true", "PIPELINE_NOT_DEPLOYED");
  }
  const version = pinned ?? (testMode ? row.version : (row.deployedVersion as number));
  if (version === row.version) return { version, definition: row.definition as Definition };
  return { version, definition: (await store.getVersion(orgId, pipelineId, version)).definition as Definition };
}

/** `servicesFor` is passed in (src/main/wiring.ts; the org context's `runFor` is the wired form). */
export function runFor(ctx: OrgContext, job: ExecutionJob, durableWaits: boolean, servicesFor: PipelineServicesFactory): ExecutionRun {
  const plan = planFor(ctx, job.pipelineId, job.version, job.definition);
  return new ExecutionRun(plan, job.state, {
    orgId: job.orgId,
    executionId: job.executionId,
    testMode: job.testMode,
    trigger: job.trigger,
    services: servicesFor(ctx, pipelinePrincipal(job.orgId, job.pipelineId), job.testMode),
    inlineWaitMaxMs: durableWaits ? 0 : INLINE_WAIT_MAX_MS,
    durableWaits,
    // Read once per execution, and only when a node evaluates an expression.
    expressionSteps: recent(async () => (await limitsOfOrg(ctx)).expressionSteps, EXPRESSION_LIMIT_TTL_MS),
  });
}

export function nodeResults(state: RunState): Record<string, NodeResult> {
  const out: Record<string, NodeResult> = {};
  for (const [id, n] of Object.entries(state.nodes)) {
    out[id] = {
      status: n.status,
      duration_ms: n.duration_ms,
      node_type: n.node_type,
      attempts: n.attempts,
      ...(n.error ? { error: n.error } : {}),
      ...(n.would_write ? { would_write: n.would_write } : {}),
    };
  }
  return out;
}

export function recordOf(run: ExecutionRun): ExecutionRecord {
  return {
    inputs: run.state.inputs,
    outputs: executionOutputs(run),
    nodes: run.state.nodes,
    ...(run.state.stopped_by ? { error: run.state.stopped_by } : {}),
  };
}

/**
 * Writes the final record and frees the concurrency slot (unless a batch holds it);
 * `recordInto`: the run's start was never recorded, so the whole record's insert goes to the batch's records.
 */
export async function finishJob(
  data: OrgContext,
  job: ExecutionJob,
  run: ExecutionRun,
  opts: { slotHeld?: boolean; recordInto?: { row: NewExecution; writes: Write[] } } = {},
): Promise<ExecutionResponse> {
  const { env } = data;
  const status = executionStatus(run);
  const store = new ExecutionStore(data.db, env);
  const record = recordOf(run);
  const into = opts.recordInto;
  // The slot is freed even when the record cannot be written; both go at once.
  const [saved] = await Promise.allSettled([
    into
      ? store.finishedInsert(into.row, status, job.startedAt, record).then(({ write }) => into.writes.push(write))
      : store.finish(job.orgId, job.executionId, status, job.startedAt, record),
    opts.slotHeld ? Promise.resolve(false) : releaseSlot(env, job.orgId, "executions", job.executionId),
  ]);
  if (saved.status === "rejected") throw saved.reason;
  const durationMs = Date.now() - Date.parse(job.startedAt);
  const results = nodeResults(run.state);
  const nodes = Object.keys(results).length;
  logger(env).info("execution finished", { org: job.orgId, execution_id: job.executionId, pipeline_id: job.pipelineId, status, trigger: job.trigger.kind, nodes, duration_ms: durationMs });
  recordMetric(env, { kind: "execution", org: job.orgId, pipeline: job.pipelineId, status, trigger: job.trigger.kind, durationMs, nodes });
  if (status === "completed" || status === "failed") await data.publish([executionFinished(job, status, durationMs, run.state.stopped_by)]);
  return {
    execution_id: job.executionId,
    status,
    pipeline_id: job.pipelineId,
    pipeline_version: job.version,
    test_mode: job.testMode,
    outputs: record.outputs,
    node_results: results,
    ...(run.state.stopped_by ? { error: run.state.stopped_by } : {}),
    duration_ms: durationMs,
  };
}

/**
 * The `execution.completed` or `execution.failed` event (docs/webhooks.md). A run of an execution
 * batch (the inbound drain) raises it before the batch commits its record; if that commit fails,
 * the message is processed again as a new execution.
 */
function executionFinished(job: ExecutionJob, status: "completed" | "failed", durationMs: number, error: NodeError | undefined): PublishedEvent {
  const type = `execution.${status}`;
  return {
    type,
    id: `${type}.${job.executionId}`,
    occurred_at: new Date().toISOString(),
    data: {
      execution_id: job.executionId,
      pipeline_id: job.pipelineId,
      pipeline_version: job.version,
      trigger: job.trigger.kind,
      test_mode: job.testMode,
      duration_ms: durationMs,
      ...(status === "failed" ? { error: { code: error?.code ?? null, message: error?.message ?? null, node_id: error?.node_id ?? null, node_type: error?.node_type ?? null } } : {}),
    },
  };
}

export function executionRunner(env: Env, orgId: string, executionId: string) {
  return orgObject(env.EXECUTION_RUNNER, orgId, executionId);
}

/** Runs a pipeline: the wired form, without `servicesFor`, is the org context's `execute` (src/main/wiring.ts). */
export async function execute(ctx: OrgContext, req: ExecuteRequest, servicesFor: PipelineServicesFactory): Promise<ExecutionResponse> {
  const store = new ExecutionStore(ctx.db, ctx.env);
  if (req.idempotencyKey) {
    const seen = await store.byIdempotencyKey(ctx.orgId, req.pipelineId, req.idempotencyKey);
    if (seen) return { execution_id: seen.id, status: seen.status as ExecutionStatus, pipeline_id: seen.pipelineId, pipeline_version: seen.pipelineVersion, test_mode: seen.testMode };
  }
  const runnable = await runnableVersion(ctx, req.pipelineId, req.testMode, req.pinned?.version);
  return launch(ctx, store, req, runnable, servicesFor);
}

/** Opens an execution batch: the wired form, without `servicesFor`, is the org context's `openExecutionBatch`. */
export function openExecutionBatch(ctx: OrgContext, servicesFor: PipelineServicesFactory, opts: { versionTtlMs: number }): ExecutionBatch {
  const { env, orgId } = ctx;
  // The runs go one at a time, so one slot covers them all.
  const slot = heldSlot(env, orgId, "executions", SYNC_LEASE_MS);
  const store = new ExecutionStore(ctx.db, env);
  const deployed = recentBy((pipelineId) => runnableVersion(ctx, pipelineId, false), opts.versionTtlMs);
  return {
    async run(run, records) {
      await slot.hold(run.concurrencyLimit);
      const runnable = await deployed(run.pipelineId);
      return launch(ctx, store, { ...run, async: false, testMode: false }, runnable, servicesFor, records);
    },
    close: () => slot.release(),
  };
}

/**
 * Starts (and, when sync, runs) one execution of `runnable`. Alone, it takes and frees its own
 * slot and records the run at its start; in a batch (`batchRecords`), the batch holds the slot
 * and the finished record's insert goes to the batch's records.
 */
async function launch(
  ctx: OrgContext,
  store: ExecutionStore,
  req: ExecuteRequest,
  { version, definition }: Runnable,
  servicesFor: PipelineServicesFactory,
  batchRecords?: Write[],
): Promise<ExecutionResponse> {
  const { env, orgId } = ctx;
  const inBatch = batchRecords !== undefined;
  const plan = planFor(ctx, req.pipelineId, version, definition);
  const executionId = crypto.randomUUID();
  const freeSlot = () => (inBatch ? Promise.resolve(false) : releaseSlot(env, orgId, "executions", executionId));
  if (!inBatch) await acquireSlotOrThrow(env, orgId, "executions", executionId, req.concurrencyLimit, req.async ? ASYNC_LEASE_MS : SYNC_LEASE_MS);
  const row: NewExecution = {
    orgId,
    id: executionId,
    pipelineId: req.pipelineId,
    pipelineVersion: version,
    trigger: req.trigger.kind,
    testMode: req.testMode,
    mode: req.async ? "async" : "sync",
    retryOf: req.retry?.of ?? null,
    retryFromNode: req.retry?.fromNode ?? null,
    idempotencyKey: req.idempotencyKey ?? null,
  };
  const recordInto = batchRecords ? { row, writes: batchRecords } : undefined;
  let job: ExecutionJob;
  try {
    const startedAt = recordInto ? new Date().toISOString() : (await store.start(row)).startedAt;
    const state = req.pinned ? req.pinned.state(plan) : plan.initialState(req.inputs);
    job = { orgId, executionId, pipelineId: req.pipelineId, version, definition, testMode: req.testMode, trigger: req.trigger, startedAt, state };
    if (req.async) {
      const started = await executionRunner(env, orgId, executionId).start(job);
      if (!started.ok) throw apiErrorOf(started.error);
      return { execution_id: executionId, status: "running", pipeline_id: req.pipelineId, pipeline_version: version, test_mode: req.testMode, ...(req.retry ? { retry_of: req.retry.of } : {}) };
    }
  } catch (e) {
    await freeSlot();
    // The run never began: no execution stays "running" for it.
    if (!recordInto) await store.discard(orgId, executionId);
    if (req.idempotencyKey && isUniqueViolation(e)) {
      throw conflict("An execution with this Idempotency-Key is already being created", "DUPLICATE_EXECUTION");
    }
    throw e;
  }
  const run = runFor(ctx, job, false, servicesFor);
  try {
    await run.runToEnd();
  } catch (e) {
    // Engine faults (not node failures) still close the record and free the slot.
    await freeSlot();
    throw e instanceof ApiError ? e : new ApiError(500, "EXECUTION_FAULT", e instanceof Error ? e.message : String(e));
  }
  const response = await finishJob(ctx, job, run, { slotHeld: inBatch, ...(recordInto ? { recordInto } : {}) });
  return req.retry ? { ...response, retry_of: req.retry.of } : response;
}
