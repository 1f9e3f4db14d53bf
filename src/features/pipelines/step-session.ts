// StepSession: one Durable Object per step-by-step debugging session. It holds
// the run state between requests, runs exactly one node per step (or takes the
// caller's outputs for it) and deletes itself when the session expires.
import { OrgObject } from "../../platform/durable-objects/org-object";
import { ApiError } from "../../platform/errors";
import { executionOutputs, executionStatus, type NodeState } from "./engine";
import { type ExecutionJob, nodeResults } from "./execution-service";
import { getChunkedJson, putChunkedJson, runStateLimit, StoredValueTooLarge } from "../../platform/durable-objects/chunked-json";
import { type Failure, failure } from "../../platform/durable-objects/failure";
import { claimFor, ownedBy } from "../../platform/durable-objects/owner";

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

export type StepResult = { ok: true; view: StepView } | Failure;

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class StepSession extends OrgObject {
  async open(job: ExecutionJob): Promise<StepResult> {
    await claimFor(this.ctx.storage, job.orgId);
    return this.save(job);
  }

  /** Runs the current node; undefined when the session is unknown, expired or another org's. */
  async step(orgId: string, nodeOutputs?: Record<string, unknown>): Promise<StepResult | undefined> {
    if (!(await ownedBy(this.ctx.storage, orgId))) return undefined;
    const job = await getChunkedJson<ExecutionJob>(this.ctx.storage, "job");
    if (!job) return undefined;
    const run = (await this.orgContext(job.orgId)).runFor(job, false);
    const id = run.nextNode();
    if (!id) return this.save(job);
    const state = await run.runNode(id, nodeOutputs ? { outputs: nodeOutputs } : undefined);
    // The node ran on this copy of the state: the session moves only if the copy is stored.
    return this.save(job, { node_id: id, ...state });
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private async save(job: ExecutionJob, step?: StepView["step"]): Promise<StepResult> {
    try {
      await putChunkedJson(this.ctx.storage, "job", job, runStateLimit(this.env));
    } catch (e) {
      if (!(e instanceof StoredValueTooLarge)) throw e;
      return failure(new ApiError(413, "STEP_SESSION_TOO_LARGE", `${e.message}: the session's state is too large; the step was not taken`));
    }
    return { ok: true, view: await this.view(job, step) };
  }

  private async view(job: ExecutionJob, step?: StepView["step"]): Promise<StepView> {
    const expires = Date.now() + STEP_SESSION_TTL_MS;
    await this.ctx.storage.setAlarm(expires);
    const run = (await this.orgContext(job.orgId)).runFor(job, false);
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
