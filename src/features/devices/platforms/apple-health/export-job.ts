// AppleHealthImport: one Durable Object per export.xml import. Each alarm runs one step
// (export-import.ts), persists the state and writes the sync log before the next, so progress
// is visible as it goes and an evicted object resumes at its byte offset. The uploaded file is
// deleted from R2 once the import has finished.
import { OrgObject } from "../../../../platform/durable-objects/org-object";
import { claimFor } from "../../../../platform/durable-objects/owner";
import { logger } from "../../../../platform/observability/log";
import { type ExportImportState, importStep, writeImportLog } from "./export-import";

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class AppleHealthImport extends OrgObject {
  async start(state: ExportImportState): Promise<void> {
    await claimFor(this.ctx.storage, state.orgId);
    if (await this.ctx.storage.get("state")) return;
    await this.ctx.storage.put("state", state);
    await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const before = await this.ctx.storage.get<ExportImportState>("state");
    if (!before || before.state === "completed" || before.state === "failed") return;
    const data = await this.orgContext(before.orgId);
    let after: ExportImportState;
    try {
      after = await importStep(data, this.env.BLOBS, before);
    } catch (err) {
      // Storage or the FHIR store failed: the step is retried (it is idempotent) by the alarm's own retries.
      logger(this.env).warn("apple health import step failed", { org: before.orgId, sync_id: before.syncId, error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
    await this.ctx.storage.put("state", after);
    await writeImportLog(data, after, before.state === "queued");
    if (after.state === "completed" || after.state === "failed") await this.env.BLOBS.delete(after.key);
    else await this.ctx.storage.setAlarm(Date.now());
  }
}
