// ExecutionRunner: one Durable Object per asynchronous execution. It keeps the
// run state in its storage, checkpoints after every node and drives the run from
// its alarm, so an eviction or restart resumes at the first unfinished node.
import { logger } from "../../platform/observability/log";
import { OrgObject } from "../../platform/durable-objects/org-object";
import { ApiError } from "../../platform/errors";
import { acquireSlotOrThrow } from "../tenancy";
import { ASYNC_LEASE_MS, type ExecutionJob, finishJob } from "./execution-service";
import type { NodeState, RunState } from "./engine";
import { getChunkedJson, putChunkedJson, runStateLimit, StoredValueTooLarge } from "../../platform/durable-objects/chunked-json";
import { type Failure, failure } from "../../platform/durable-objects/failure";
import { claimFor, ownedBy } from "../../platform/durable-objects/owner";

/** If the object dies mid-node, the alarm fires again after this long and resumes. */
const WATCHDOG_MS = 30_000;

/** The job without its state: written once, while the state is rewritten after every node. */
type JobMeta = Omit<ExecutionJob, "state">;

/** Marks a node whose result could not be checkpointed as the failure that stops the run. */
function notStored(state: RunState, nodeId: string): void {
  const node = state.nodes[nodeId] as NodeState;
  const error = {
    code: "EXECUTION_STATE_NOT_STORED",
    message: `The run's state after node ${nodeId} could not be stored (too large?); its outputs were dropped`,
    node_id: nodeId,
    node_type: node.node_type,
  };
  Object.assign(node, { status: "failed", outputs: undefined, error });
  state.stopped_by = error;
}

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class ExecutionRunner extends OrgObject {
  async start(job: ExecutionJob): Promise<{ ok: true } | Failure> {
    await claimFor(this.ctx.storage, job.orgId);
    if (await getChunkedJson(this.ctx.storage, "meta")) return { ok: true }; // at-least-once callers: starting twice is a no-op
    const { state, ...meta } = job;
    try {
      // Node outputs and inputs can be MBs: both go in chunks; meta last, as it marks the job stored.
      await putChunkedJson(this.ctx.storage, "state", state, runStateLimit(this.env));
      await putChunkedJson(this.ctx.storage, "meta", meta);
    } catch (e) {
      if (!(e instanceof StoredValueTooLarge)) throw e;
      return failure(new ApiError(413, "EXECUTION_STATE_NOT_STORED", "The execution's inputs are too large to run asynchronously"));
    }
    await this.ctx.storage.setAlarm(Date.now());
    return { ok: true };
  }

  /** Live progress for GET /executions/{id} while the run is under way. */
  async snapshot(orgId: string): Promise<RunState | undefined> {
    if (!(await ownedBy(this.ctx.storage, orgId))) return undefined;
    return getChunkedJson<RunState>(this.ctx.storage, "state");
  }

  private async load(): Promise<ExecutionJob | undefined> {
    const [meta, state] = await Promise.all([getChunkedJson<JobMeta>(this.ctx.storage, "meta"), getChunkedJson<RunState>(this.ctx.storage, "state")]);
    return meta && state ? { ...meta, state } : undefined;
  }

  /** False when the state has outgrown what a run may store; other storage errors propagate (the alarm retries). */
  private async checkpoint(state: RunState): Promise<boolean> {
    try {
      await putChunkedJson(this.ctx.storage, "state", state, runStateLimit(this.env));
      return true;
    } catch (e) {
      if (!(e instanceof StoredValueTooLarge)) throw e;
      logger(this.env).error("execution checkpoint too large", { error_message: e.message });
      return false;
    }
  }

  override async alarm(): Promise<void> {
    const job = await this.load();
    if (!job) return;
    await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
    // Renew the slot lease: a long run keeps counting against the org's concurrency.
    await acquireSlotOrThrow(this.env, job.orgId, "executions", job.executionId, Number.MAX_SAFE_INTEGER, ASYNC_LEASE_MS);
    const org = await this.orgContext(job.orgId);
    const run = org.runFor(job, true);
    for (let id = run.nextNode(); id; id = run.nextNode()) {
      const node = run.node(id);
      if (node.status === "waiting" && (node.wait_until ?? 0) > Date.now()) {
        await putChunkedJson(this.ctx.storage, "state", job.state, runStateLimit(this.env));
        await this.ctx.storage.setAlarm(node.wait_until as number);
        return;
      }
      const started = performance.now();
      await run.runNode(id);
      logger(this.env).info("execution node", { org: job.orgId, execution_id: job.executionId, node: id, status: run.node(id).status, duration_ms: Math.round(performance.now() - started) });
      if (!(await this.checkpoint(job.state))) {
        // Retrying would rerun the node into the same wall: the run ends here, failed.
        notStored(job.state, id);
        break;
      }
    }
    await finishJob(org, job, run);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }
}
