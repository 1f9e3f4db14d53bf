// StepSession: one Durable Object per step-by-step debugging session. It holds
// the run state between requests, runs exactly one node per step (or takes the
// caller's outputs for it) and deletes itself when the session expires.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import { executionOutputs, executionStatus, type NodeState } from "../src/pipelines/engine";
import { type ExecutionJob, nodeResults, runFor } from "../src/pipelines/execution-service";
import { getChunkedJson, putChunkedJson } from "./chunked-json";

/** Idle sessions expire after this long; every step extends it. */
export const STEP_SESSION_TTL_MS = 60 * 60_000;

export interface StepView {
  session_id: string;
  status: "waiting" | "completed" | "failed";
  current_node: string | null;
  expires_at: string;
  /** The node just run, with its inputs, outputs, logs and error. */
  step?: { node_id: string } & NodeState;
  outputs?: unknown;
  node_results?: ReturnType<typeof nodeResults>;
}

export class StepSession extends DurableObject<Env> {
  async open(job: ExecutionJob): Promise<StepView> {
    await putChunkedJson(this.ctx.storage, "job", job);
    return this.view(job);
  }

  async step(nodeOutputs?: Record<string, unknown>): Promise<StepView | undefined> {
    const job = await getChunkedJson<ExecutionJob>(this.ctx.storage, "job");
    if (!job) return undefined;
    const run = runFor(this.env, job, false);
    const id = run.nextNode();
    if (!id) return this.view(job);
    const state = await run.runNode(id, nodeOutputs ? { outputs: nodeOutputs } : undefined);
    await putChunkedJson(this.ctx.storage, "job", job);
    return this.view(job, { node_id: id, ...state });
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private async view(job: ExecutionJob, step?: StepView["step"]): Promise<StepView> {
    const expires = Date.now() + STEP_SESSION_TTL_MS;
    await this.ctx.storage.setAlarm(expires);
    const run = runFor(this.env, job, false);
    const status = executionStatus(run);
    const next = run.nextNode() ?? null;
    const done = status === "completed" || status === "failed";
    return {
      session_id: job.executionId,
      status: done ? status : "waiting",
      current_node: done ? null : next,
      expires_at: new Date(expires).toISOString(),
      ...(step ? { step } : {}),
      ...(done ? { outputs: executionOutputs(run), node_results: nodeResults(job.state) } : {}),
    };
  }
}
