// DeviceSync: one Durable Object per manual sync. Each alarm fetches one page of one data type
// through the platform's adapter, ingests it (ingestReadings, idempotent) and writes the
// progress to the sync log before moving on, so an evicted object resumes at the page it was
// on (a page fetched twice only meets its own Observations). Rate limits and outages wait and
// retry; other failures fail the data type and the sync goes on with the next one.
import type { LinkedCall } from "./linked-calls";
import type { PublishedEvent } from "../../platform/events";
import { logger } from "../../platform/observability/log";
import { OrgObject } from "../../platform/durable-objects/org-object";
import { claimFor } from "../../platform/durable-objects/owner";
import { type PlatformCall, PlatformError } from "./platform-adapter";
import { RAW } from "./resolutions";
import { findIntegration, integrationCredentials } from "./store/integrations";
import { findLink, unsealTokens, updateLink } from "./store/links";
import { MAX_ERRORS_KEPT, newProgress, type SyncState, type TypeProgress, updateSyncLog } from "./store/sync-logs";
import { ingestReadings } from "./use-cases/ingest";
import type { SyncJob } from "./use-cases/sync";
import { vendorFetch } from "./vendor-fetch";

const MAX_RETRIES = 5;
const MAX_WAIT_SECONDS = 300;

interface Cursor {
  typeIndex: number;
  cursor?: string;
  retries: number;
  progress: Record<string, TypeProgress>;
}

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class DeviceSync extends OrgObject {
  /** How a sync calls a platform for a device another module holds the link of (OAuth wearables):
   * none here; the Worker entry binds the wearables' implementation (src/main/entry.ts). */
  protected readonly linkedCall: LinkedCall = async () => ({ handled: false });

  async start(job: SyncJob): Promise<void> {
    await claimFor(this.ctx.storage, job.orgId);
    if (await this.ctx.storage.get("job")) return;
    await this.ctx.storage.put("job", job);
    await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const job = await this.ctx.storage.get<SyncJob>("job");
    if (!job) return;
    const ctx = await this.orgContext(job.orgId);
    const at = (await this.ctx.storage.get<Cursor>("cursor")) ?? { typeIndex: 0, retries: 0, progress: Object.fromEntries(job.dataTypes.map((t) => [t, newProgress()])) };
    if (at.typeIndex === 0 && !at.cursor && at.retries === 0 && Object.values(at.progress).every((p) => p.state === "pending")) {
      await updateSyncLog(ctx, job.syncId, { state: "running", startedAt: new Date().toISOString() });
    }
    const dataType = job.dataTypes[at.typeIndex];
    if (dataType === undefined) return;
    const progress = at.progress[dataType]!;
    progress.state = "running";
    let wait = 0;
    try {
      const link = await findLink(ctx, job.deviceId);
      const integration = await findIntegration(ctx, job.integrationId);
      const adapter = link && ctx.devicePlatforms.of(link.platform);
      if (link?.status !== "active" || !integration || !adapter) throw new PlatformError("revoked", "the device link, its integration or its platform adapter is gone");
      const fetchPage = (call: PlatformCall) =>
        adapter.fetchPage(call, { deviceId: link.deviceId, patientId: link.patientId, ...(link.platformUserId ? { platformUserId: link.platformUserId } : {}) }, { dataType, from: job.from, to: job.to, ...(at.cursor ? { cursor: at.cursor } : {}), resolution: job.resolutions?.[dataType] ?? RAW });
      // An OAuth-linked device is called with its platform link's fresh tokens; others with the device link's own.
      const viaLink = await this.linkedCall(ctx, link.deviceId, fetchPage);
      const page = viaLink.handled ? viaLink.value : await fetchPage({ credentials: credentialsOf(await integrationCredentials(ctx, integration)), tokens: await unsealTokens(ctx, link), fetch: vendorFetch(this.env) });
      const results = await ingestReadings(ctx, job.principal, page.readings);
      logger(this.env).info("sync page", { org: job.orgId, sync_id: job.syncId, device_id: job.deviceId, data_type: dataType, readings: page.readings.length, more: page.nextCursor !== undefined });
      progress.pages_fetched += 1;
      progress.readings_received += page.readings.length;
      for (const r of results) {
        if (r.errors) progress.readings_rejected += 1;
        else if (r.duplicate) progress.duplicates_skipped += 1;
        else if (r.updated) progress.observations_updated += 1;
        else progress.observations_created += 1;
      }
      const reasons = [
        ...(page.skipped ?? []).map((s) => ({ reason: s.reason, record: s.sourceRecordId })),
        ...results.flatMap((r, i) => (r.errors ? [{ reason: r.errors.map((e) => `${e.path}: ${e.message}`).join("; "), record: page.readings[i]?.sourceRecordId }] : [])),
      ];
      progress.errors = [...progress.errors, ...reasons].slice(0, MAX_ERRORS_KEPT);
      at.retries = 0;
      if (page.nextCursor) at.cursor = page.nextCursor;
      else {
        progress.state = "completed";
        at.typeIndex += 1;
        at.cursor = undefined;
      }
    } catch (err) {
      const transient = err instanceof PlatformError && (err.kind === "rate_limited" || err.kind === "unavailable");
      if (err instanceof PlatformError && err.kind === "rate_limited") progress.rate_limited += 1;
      if (transient && at.retries < MAX_RETRIES) {
        at.retries += 1;
        wait = Math.min((err as PlatformError).retryAfterSeconds ?? 2 ** at.retries, MAX_WAIT_SECONDS);
      } else {
        progress.state = "failed";
        progress.errors = [...progress.errors, { reason: err instanceof PlatformError ? `${err.kind}: ${err.message}` : `error: ${err instanceof Error ? err.message : String(err)}` }].slice(-MAX_ERRORS_KEPT);
        at.typeIndex += 1;
        at.cursor = undefined;
        at.retries = 0;
      }
    }
    await this.ctx.storage.put("cursor", at);
    const done = at.typeIndex >= job.dataTypes.length;
    const states = Object.values(at.progress).map((p) => p.state);
    const state: SyncState = !done ? "running" : states.every((s) => s === "completed") ? "completed" : states.every((s) => s === "failed") ? "failed" : "partially_failed";
    await updateSyncLog(ctx, job.syncId, { state, progress: at.progress as unknown as Record<string, unknown>, ...(done ? { finishedAt: new Date().toISOString() } : {}) });
    if (done) {
      if (state !== "failed") await updateLink(ctx, job.deviceId, { lastSyncAt: new Date().toISOString() });
      await ctx.publish([syncFinished(job, state, at.progress)]);
      return;
    }
    await this.ctx.storage.setAlarm(Date.now() + wait * 1000);
  }
}

/** The `sync.completed` (completed, partially_failed) or `sync.failed` event of a finished sync (docs/webhooks.md). */
function syncFinished(job: SyncJob, state: SyncState, progress: Record<string, TypeProgress>): PublishedEvent {
  const type = state === "failed" ? "sync.failed" : "sync.completed";
  const all = Object.values(progress);
  const sum = (k: "observations_created" | "observations_updated" | "readings_rejected") => all.reduce((n, p) => n + p[k], 0);
  return {
    type,
    id: `${type}.${job.syncId}`,
    occurred_at: new Date().toISOString(),
    data:
      type === "sync.failed"
        ? { sync_id: job.syncId, device_id: job.deviceId, state, data_types: job.dataTypes, errors: all.flatMap((p) => p.errors.map((e) => e.reason)).slice(0, 10) }
        : { sync_id: job.syncId, device_id: job.deviceId, state, data_types: job.dataTypes, observations_created: sum("observations_created"), observations_updated: sum("observations_updated"), readings_rejected: sum("readings_rejected") },
  };
}

/** The integration's stored credentials in the adapter's terms: client id and secret, the rest as extras. */
function credentialsOf(stored: Record<string, string>) {
  const { client_id: clientId, client_secret: clientSecret, ...extra } = stored;
  return { ...(clientId ? { clientId } : {}), ...(clientSecret ? { clientSecret } : {}), extra };
}
