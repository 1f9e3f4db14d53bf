// The AuditEvent log's rows of one organization: the pending log every write appends its event
// to (in its own batch), and AuditEvents stored as searchable resources, from the log in bulk or
// straight from the audit queue. AuditEvents are indexed by R4's parameters alone (definitions.ts:
// no guide adds any), since the queue's consumer and the cron index them knowing no store.
import { R4_DEFINITIONS } from "../definitions";
import { extractIndex } from "../index-extract";
import type { Resource } from "../port";
import { currentRows } from "./current-rows";
import { clearIndexOfMany, insertIndex, jsonChunks, jsonColumns } from "./index-statements";

/** An AuditEvent to record: appended to the pending log, indexed later in bulk (flushAudits). */
export interface AuditWrite {
  kind: "audit";
  event: Resource & { id: string };
}

/** An audit's row in the pending log: [id, recorded, content]. */
export const pendingRow = (a: AuditWrite): [string, string, string] => [a.event.id, a.event.meta?.lastUpdated ?? "", JSON.stringify(a.event)];

/** AuditEvents read from the pending log per flush (indexed AUDIT_WRITE_CHUNK at a time). */
const FLUSH_BATCH = 500;

/**
 * AuditEvents indexed per D1 batch. A batch holds the shard's single writer while it runs, and the
 * requests' statements queue behind it: 100 events in one batch held it ~100-200 ms under load, and
 * a flush of 500 for seconds: the tail latency of everything around it (docs/fhir-hot-path.md). Chunks
 * run one after the other, so requests that arrive meanwhile go between them.
 */
export const AUDIT_WRITE_CHUNK = 25;

export class AuditRows {
  constructor(
    readonly db: D1Database,
    readonly orgId: string,
  ) {}

  /** Appends AuditEvents to the pending log; one already there (a redelivery) is kept as it was. */
  appendAudits(events: (Resource & { id: string })[]): D1PreparedStatement[] {
    return jsonChunks(events.map((event) => pendingRow({ kind: "audit", event }))).map((chunk) =>
      this.db
        .prepare(`INSERT INTO fhir_audit_pending (org_id, id, recorded, content) SELECT ?1, ${jsonColumns(3)} FROM json_each(?2) j WHERE true ON CONFLICT DO NOTHING`)
        .bind(this.orgId, chunk),
    );
  }

  /**
   * Statements storing AuditEvents as searchable resources, idempotent on their ids: index rows
   * go in only for events not stored yet, before the events themselves, so a redelivered or
   * re-flushed event adds nothing. Run them in one batch (D1 serializes batches, so two racing
   * over the same events cannot both see them fresh).
   */
  indexAudits(events: { event: Resource & { id: string }; json: string }[]): D1PreparedStatement[] {
    const fresh = "NOT EXISTS (SELECT 1 FROM fhir_resources x WHERE x.org_id = ?1 AND x.resource_type = json_extract(j.value, '$[0]') AND x.id = json_extract(j.value, '$[1]'))";
    return [
      ...insertIndex(
        this.db,
        this.orgId,
        events.map(({ event }) => ({ type: "AuditEvent", id: event.id, rows: extractIndex(event, R4_DEFINITIONS) })),
        fresh,
      ),
      // AuditEvents never change: their current row is their whole history.
      ...currentRows(
        this.db,
        this.orgId,
        events.map(({ event, json }) => ["AuditEvent", event.id, 1, event.meta?.lastUpdated ?? "", json]),
        "DO NOTHING",
      ),
    ];
  }

  /**
   * Stores AuditEvents as searchable resources (indexAudits), `chunkSize` per D1 batch, each
   * batch with `alongside(chunk)`'s statements. A failing batch fails the call; those before it
   * stay stored, and storing them again adds nothing.
   */
  async storeAudits(events: { event: Resource & { id: string }; json: string }[], chunkSize = AUDIT_WRITE_CHUNK, alongside: (chunk: typeof events) => D1PreparedStatement[] = () => []): Promise<void> {
    for (let i = 0; i < events.length; i += chunkSize) {
      const chunk = events.slice(i, i + chunkSize);
      await this.db.batch([...this.indexAudits(chunk), ...alongside(chunk)]);
    }
  }

  /**
   * Indexes up to FLUSH_BATCH pending AuditEvents into the store and removes them from the log,
   * a chunk per batch. Two flushes racing over the same rows are harmless (indexAudits). Returns how many it took.
   */
  async flushAudits(): Promise<number> {
    const { results } = await this.db
      .prepare("SELECT content FROM fhir_audit_pending WHERE org_id = ?1 ORDER BY id LIMIT ?2")
      .bind(this.orgId, FLUSH_BATCH)
      .all<{ content: string }>();
    if (!results.length) return 0;
    const events = results.map((r) => ({ json: r.content, event: JSON.parse(r.content) as Resource & { id: string } }));
    await this.storeAudits(events, AUDIT_WRITE_CHUNK, (chunk) => [
      this.db.prepare("DELETE FROM fhir_audit_pending WHERE org_id = ?1 AND id IN (SELECT value FROM json_each(?2))").bind(this.orgId, JSON.stringify(chunk.map((e) => e.event.id))),
    ]);
    return events.length;
  }

  /**
   * Erases up to `limit` AuditEvents recorded before `before` (ISO instant): their rows, history and
   * index entries. Only the audit retention purge calls this (an operator command, itself audited);
   * no client interaction can delete an AuditEvent. Returns how many it erased.
   */
  async purgeAuditsBefore(before: string, limit = 200): Promise<number> {
    const { results } = await this.db
      .prepare("SELECT id FROM fhir_resources WHERE org_id = ?1 AND resource_type = 'AuditEvent' AND last_updated < ?2 LIMIT ?3")
      .bind(this.orgId, before, limit)
      .all<{ id: string }>();
    if (!results.length) return 0;
    const ids = JSON.stringify(results.map((r) => r.id));
    await this.db.batch([
      ...clearIndexOfMany(this.db, this.orgId, "AuditEvent", ids),
      this.db.prepare("DELETE FROM fhir_history WHERE org_id = ?1 AND resource_type = 'AuditEvent' AND id IN (SELECT value FROM json_each(?2))").bind(this.orgId, ids),
      this.db.prepare("DELETE FROM fhir_resources WHERE org_id = ?1 AND resource_type = 'AuditEvent' AND id IN (SELECT value FROM json_each(?2))").bind(this.orgId, ids),
    ]);
    return results.length;
  }
}
