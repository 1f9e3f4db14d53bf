// ExecutionRunner: one Durable Object per asynchronous execution. It keeps the
// run state in its storage, checkpoints after every node and drives the run from
// its alarm, so an eviction or restart resumes at the first unfinished node.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import { acquireSlotOrThrow } from "../src/limits/gate";
import { ASYNC_LEASE_MS, type ExecutionJob, finishJob, runFor } from "../src/pipelines/execution-service";
import type { RunState } from "../src/pipelines/engine";
import { getChunkedJson, putChunkedJson } from "./chunked-json";

/** If the object dies mid-node, the alarm fires again after this long and resumes. */
const WATCHDOG_MS = 30_000;

/** The job without its state: written once, while the state is rewritten after every node. */
type JobMeta = Omit<ExecutionJob, "state">;

export class ExecutionRunner extends DurableObject<Env> {
  async start(job: ExecutionJob): Promise<void> {
    if (await getChunkedJson(this.ctx.storage, "meta")) return; // at-least-once callers: starting twice is a no-op
    const { state, ...meta } = job;
    // Node outputs and inputs can be MBs: both go in chunks; meta last, as it marks the job stored.
    await putChunkedJson(this.ctx.storage, "state", state);
    await putChunkedJson(this.ctx.storage, "meta", meta);
    await this.ctx.storage.setAlarm(Date.now());
  }

  /** Live progress for GET /executions/{id} while the run is under way. */
  async snapshot(): Promise<RunState | undefined> {
    return getChunkedJson<RunState>(this.ctx.storage, "state");
  }

  private async load(): Promise<ExecutionJob | undefined> {
    const [meta, state] = await Promise.all([getChunkedJson<JobMeta>(this.ctx.storage, "meta"), getChunkedJson<RunState>(this.ctx.storage, "state")]);
    return meta && state ? { ...meta, state } : undefined;
  }

  override async alarm(): Promise<void> {
    const job = await this.load();
    if (!job) return;
    await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
    // Renew the slot lease: a long run keeps counting against the org's concurrency.
    await acquireSlotOrThrow(this.env, job.orgId, "executions", job.executionId, Number.MAX_SAFE_INTEGER, ASYNC_LEASE_MS);
    const run = runFor(this.env, job, true);
    for (let id = run.nextNode(); id; id = run.nextNode()) {
      const node = run.node(id);
      if (node.status === "waiting" && (node.wait_until ?? 0) > Date.now()) {
        await putChunkedJson(this.ctx.storage, "state", job.state);
        await this.ctx.storage.setAlarm(node.wait_until as number);
        return;
      }
      await run.runNode(id);
      await putChunkedJson(this.ctx.storage, "state", job.state);
    }
    await finishJob(this.env, job, run);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }
}
