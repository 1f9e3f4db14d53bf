// OrgMover: one Durable Object per organization that runs its move between shards
// (platform/org-move.ts) from alarms. The job's whole state is stored after every step, so a
// move survives eviction and restarts and resumes where it stopped; the directory caches are
// waited out by alarms, never by a request. The operator routes start it and read its progress.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../platform/env";
import { PLACEMENT_TTL_MS } from "../../platform/directory";
import { asFailure, type Failure } from "../../platform/durable-objects/failure";
import { logger } from "../../platform/observability/log";
import { type MoveJob, beginMove, isFinished, stepMove } from "../../platform/org-move";
import { settingsOf } from "../../platform/settings";
import { forgetCachedKeys } from "../tenancy";

/** Work done in one alarm before it yields (the state is saved after every step anyway). */
const ALARM_BUDGET_MS = 10_000;
const PAGES_PER_STEP = 20;

/** The wait for every isolate's directory cache: the cache TTL and a margin. DEV_MODE may shorten it (ORG_MOVE_SETTLE_MS) where one isolate serves everything. */
export function settleMs(env: Env): number {
  const settings = settingsOf(env);
  const dev = settings.DEV_MODE === "true" ? Number(settings.ORG_MOVE_SETTLE_MS) : Number.NaN;
  return Number.isInteger(dev) && dev >= 0 ? dev : PLACEMENT_TTL_MS + 1_000;
}

export class OrgMover extends DurableObject<Env> {
  /** Starts moving `orgId` to `target`: the job (writes paused), or the failure that refused it. */
  async start(orgId: string, target: string): Promise<{ ok: true; job: MoveJob } | Failure> {
    try {
      const job = await beginMove(this.env, orgId, target, settleMs(this.env), { onDirectoryChange: forgetCachedKeys });
      await this.ctx.storage.put("job", job);
      await this.ctx.storage.setAlarm(job.notBefore);
      logger(this.env).info("org move started", { org: orgId, job_id: job.id, from: job.from, to: target });
      return { ok: true, job };
    } catch (err) {
      return asFailure(err);
    }
  }

  /** The org's latest move, running or finished. */
  async status(): Promise<MoveJob | undefined> {
    return this.ctx.storage.get<MoveJob>("job");
  }

  override async alarm(): Promise<void> {
    let job = await this.status();
    if (!job || isFinished(job)) return;
    const until = Date.now() + ALARM_BUDGET_MS;
    while (!isFinished(job) && Date.now() >= job.notBefore && Date.now() < until) {
      job = await stepMove(this.env, job, { pagesPerStep: PAGES_PER_STEP, onDirectoryChange: forgetCachedKeys });
      await this.ctx.storage.put("job", job);
    }
    if (!isFinished(job)) {
      await this.ctx.storage.setAlarm(Math.max(Date.now(), job.notBefore));
      return;
    }
    const log = logger(this.env);
    const fields = { org: job.orgId, job_id: job.id, from: job.from, to: job.to, phase: job.phase, rows: job.copiedRows, error_code: job.error?.code, error_message: job.error?.message };
    if (job.phase === "done") log.info("org move done", fields);
    else log.error("org move ended without moving", fields);
  }
}
