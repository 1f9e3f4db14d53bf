// Retry from a node: a new execution of the recorded version that reuses the
// outputs of the original's successful nodes outside the re-run region and runs
// the chosen node and everything downstream of it again.
import type { OrgContext } from "../../platform/org-context";
import { conflict, notFound } from "../../platform/errors";
import type { ExecutionPlan, RunState } from "./engine";
import { type ExecuteRequest, type ExecutionResponse, planFor, runnableVersion } from "./execution-service";
import { type ExecutionRecord, ExecutionStore } from "./execution-store";

export interface RetryRequest {
  executionId: string;
  nodeId: string;
  /** Replaces the node's input port values; otherwise they come from the reused upstream outputs. */
  inputs?: Record<string, unknown>;
  async: boolean;
  concurrencyLimit: number;
}

export function seededState(plan: ExecutionPlan, record: ExecutionRecord, nodeId: string, inputs?: Record<string, unknown>): RunState {
  const state = plan.initialState(record.inputs);
  const rerun = plan.descendants(nodeId).add(nodeId);
  for (const [id, fresh] of Object.entries(state.nodes)) {
    const old = record.nodes[id];
    if (rerun.has(id) || !old) continue;
    if ((old.status === "completed" || old.status === "reused") && old.outputs) {
      state.nodes[id] = { ...fresh, status: "reused", inputs: old.inputs, outputs: old.outputs, duration_ms: 0 };
    } else if (old.status === "skipped") {
      state.nodes[id] = { ...fresh, status: "skipped" };
    }
  }
  if (inputs) state.input_overrides = { [nodeId]: inputs };
  return state;
}

export async function retryFromNode(ctx: OrgContext, req: RetryRequest): Promise<ExecutionResponse> {
  const { env, orgId } = ctx;
  const store = new ExecutionStore(ctx.db, env);
  const original = await store.get(orgId, req.executionId);
  const record = await store.record(original);
  if (!record) throw conflict("The execution has not finished yet", "EXECUTION_NOT_FINISHED");
  const { definition } = await runnableVersion(ctx, original.pipelineId, original.testMode, original.pipelineVersion);
  const plan = planFor(ctx, original.pipelineId, original.pipelineVersion, definition);
  if (!plan.nodes.has(req.nodeId)) throw notFound(`Version ${original.pipelineVersion} has no node ${req.nodeId}`, "NODE_NOT_FOUND");
  const request: ExecuteRequest = {
    pipelineId: original.pipelineId,
    inputs: record.inputs,
    async: req.async,
    testMode: original.testMode,
    trigger: { kind: "retry" },
    concurrencyLimit: req.concurrencyLimit,
    retry: { of: original.id, fromNode: req.nodeId },
    pinned: { version: original.pipelineVersion, state: (p) => seededState(p, record, req.nodeId, req.inputs) },
  };
  return ctx.execute(request);
}
