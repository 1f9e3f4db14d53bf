// ExportJob: one Durable Object per Bulk Data export. It owns the job's state,
// advances it in alarm-driven chunks (so it survives eviction and restarts),
// holds the org's export slot while running, and deletes its files at expiry.
import { logger } from "../../platform/observability/log";
import { recordMetric } from "../../platform/observability/metrics";
import { OrgObject } from "../../platform/durable-objects/org-object";
import { EXPORT_SLOT_LEASE_MS, type ExportJobState, advanceExport, deleteExportFiles, requesterOf } from "./job";
import { orgGate, releaseSlot } from "../tenancy";
import { settingsOf } from "../../platform/settings";
import { getChunkedJson, putChunkedJson } from "../../platform/durable-objects/chunked-json";
import { claimFor, ownedBy } from "../../platform/durable-objects/owner";

const CHUNK_BUDGET_MS = 20_000;
const MAX_ATTEMPTS = 5;
const DEFAULT_TTL_HOURS = 24;
/** How long a cancelled or failed job answers before its record is purged. */
const TOMBSTONE_MS = 60 * 60_000;

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class ExportJob extends OrgObject {
  async start(state: ExportJobState, slotLimit: number): Promise<void> {
    await claimFor(this.ctx.storage, state.orgId);
    // The state can outgrow one storage value (a POST kick-off may list many patients).
    await this.ctx.storage.put("slotLimit", slotLimit);
    await putChunkedJson(this.ctx.storage, "state", state);
    await this.ctx.storage.setAlarm(Date.now());
  }

  async snapshot(orgId: string): Promise<ExportJobState | undefined> {
    return (await ownedBy(this.ctx.storage, orgId)) ? this.load() : undefined;
  }

  private load(): Promise<ExportJobState | undefined> {
    return getChunkedJson<ExportJobState>(this.ctx.storage, "state");
  }

  /** Cancels a running export or deletes a finished one; false when unknown or already cancelled. */
  async cancel(orgId: string): Promise<boolean> {
    const state = await this.snapshot(orgId);
    if (!state || state.status === "cancelled") return false;
    await deleteExportFiles(state, this.env.BLOBS);
    if (state.status === "running") await releaseSlot(this.env, state.orgId, "exports", state.id);
    state.status = "cancelled";
    state.files = [];
    state.errorFiles = [];
    state.openUpload = undefined;
    await putChunkedJson(this.ctx.storage, "state", state);
    await this.ctx.storage.setAlarm(Date.now() + TOMBSTONE_MS);
    return true;
  }

  override async alarm(): Promise<void> {
    const state = await this.load();
    if (!state) return;
    if (state.status !== "running") return this.purge(state);
    const slotLimit = (await this.ctx.storage.get<number>("slotLimit")) ?? 1;
    await orgGate(this.env, state.orgId).acquireSlot("exports", state.id, slotLimit, EXPORT_SLOT_LEASE_MS);
    const persist = (s: ExportJobState) => putChunkedJson(this.ctx.storage, "state", s);
    try {
      const done = await advanceExport(
        state,
        // The store reads as the requester, so its access policy judges every page.
        { source: (await this.orgContext(state.orgId)).fhir(requesterOf(state)), bucket: this.env.BLOBS, persist },
        CHUNK_BUDGET_MS,
      );
      logger(this.env).info("export page", { org: state.orgId, export_id: state.id, resources: state.exported, done });
      if (!done) {
        await this.ctx.storage.setAlarm(Date.now());
        return;
      }
      state.status = "completed";
      state.completedAt = new Date().toISOString();
      state.expiresAt = new Date(Date.now() + this.ttlMs()).toISOString();
      await persist(state);
      recordMetric(this.env, { kind: "export", org: state.orgId, status: "completed", resources: state.exported, durationMs: Date.parse(state.completedAt) - Date.parse(state.transactionTime) });
      await releaseSlot(this.env, state.orgId, "exports", state.id);
      await this.ctx.storage.setAlarm(Date.parse(state.expiresAt));
    } catch (err) {
      state.attempts += 1;
      state.failure = err instanceof Error ? err.message : String(err);
      if (state.attempts >= MAX_ATTEMPTS) {
        state.status = "failed";
        await persist(state);
        await deleteExportFiles(state, this.env.BLOBS);
        await releaseSlot(this.env, state.orgId, "exports", state.id);
        await this.ctx.storage.setAlarm(Date.now() + TOMBSTONE_MS);
        return;
      }
      await persist(state);
      await this.ctx.storage.setAlarm(Date.now() + 1000 * 2 ** state.attempts);
    }
  }

  private ttlMs(): number {
    const hours = Number(settingsOf(this.env).EXPORT_TTL_HOURS);
    return (Number.isFinite(hours) && hours > 0 ? hours : DEFAULT_TTL_HOURS) * 3_600_000;
  }

  /** Expiry of a completed export, or the end of a cancelled/failed tombstone. */
  private async purge(state: ExportJobState): Promise<void> {
    await deleteExportFiles(state, this.env.BLOBS);
    await this.ctx.storage.deleteAll();
  }
}
