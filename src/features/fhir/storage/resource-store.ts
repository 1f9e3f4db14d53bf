// Reads and writes resource versions of one organization in D1. Every statement binds org_id
// first; writes come back as statements so callers can put several in one atomic db.batch.
// Resources are indexed by the search parameters of the store's definitions; the AuditEvent
// log's rows are audit-rows.ts's.
import type { FhirDefinitions } from "../definitions";
import { extractIndex } from "../index-extract";
import type { Resource } from "../port";
import { type AuditWrite, pendingRow } from "./audit-rows";
import { currentRows } from "./current-rows";
import { clearIndex, indexChanges, insertIndex, jsonChunks, jsonColumns } from "./index-statements";

export type { AuditWrite } from "./audit-rows";

export interface StoredVersion {
  resourceType: string;
  id: string;
  versionId: number;
  lastUpdated: string;
  deleted: boolean;
  content: string;
}

export interface Row {
  resource_type: string;
  id: string;
  version_id: number;
  last_updated: string;
  deleted: number;
  content: string;
}

export const toVersion = (r: Row): StoredVersion => ({
  resourceType: r.resource_type,
  id: r.id,
  versionId: r.version_id,
  lastUpdated: r.last_updated,
  deleted: r.deleted === 1,
  content: r.content,
});

/** A new version of a resource (create when versionId is 1, or after a delete). */
export interface PutVersion {
  kind: "put";
  resource: Resource & { id: string };
  versionId: number;
  lastUpdated: string;
  method: "POST" | "PUT";
  /** The live version this one replaces (its stored JSON, parsed): only the index rows that differ are rewritten. */
  replaces?: Resource;
  /** `resource` as JSON, when the caller already has it (the size check made it). */
  content?: string;
}

export interface DeleteVersion {
  kind: "delete";
  type: string;
  id: string;
  versionId: number;
  lastUpdated: string;
}

export type VersionWrite = PutVersion | DeleteVersion | AuditWrite;

/** Sources per reference query: their keys travel as one JSON value, well under D1's 2 MB per value. */
const REFERENCE_SOURCES_PER_QUERY = 5000;

export interface HistoryQuery {
  type?: string;
  id?: string;
  since?: string;
  /** Exclusive upper bound on last_updated (paging cursor). */
  before?: { lastUpdated: string; type: string; id: string; versionId: number };
  count: number;
}

export class ResourceStore {
  constructor(
    readonly db: D1Database,
    readonly orgId: string,
    /** The search parameters its writes index. */
    readonly definitions: FhirDefinitions,
  ) {}

  async current(type: string, id: string): Promise<StoredVersion | undefined> {
    const row = await this.currentStatement(type, id).first<Row>();
    return row ? toVersion(row) : undefined;
  }

  /** The statement reading a current version (for callers batching several reads). */
  currentStatement(type: string, id: string): D1PreparedStatement {
    return this.db
      .prepare(
        "SELECT resource_type, id, version_id, last_updated, deleted, content FROM fhir_resources WHERE org_id = ?1 AND resource_type = ?2 AND id = ?3",
      )
      .bind(this.orgId, type, id);
  }

  async version(type: string, id: string, versionId: number): Promise<StoredVersion | undefined> {
    const row = await this.db
      .prepare(
        "SELECT resource_type, id, version_id, last_updated, deleted, content FROM fhir_history WHERE org_id = ?1 AND resource_type = ?2 AND id = ?3 AND version_id = ?4",
      )
      .bind(this.orgId, type, id, versionId)
      .first<Row>();
    return row ? toVersion(row) : undefined;
  }

  /** Current versions, deleted ones included, by (type, id) pairs, in one query. */
  async currents(keys: { type: string; id: string }[]): Promise<StoredVersion[]> {
    if (keys.length === 0) return [];
    // CROSS JOIN keeps the keys as the outer loop: with a plain JOIN SQLite scanned the org's whole table.
    const { results } = await this.db
      .prepare(
        `SELECT r.resource_type, r.id, r.version_id, r.last_updated, r.deleted, r.content FROM json_each(?2) k
         CROSS JOIN fhir_resources r ON r.org_id = ?1 AND r.resource_type = json_extract(k.value, '$[0]') AND r.id = json_extract(k.value, '$[1]')`,
      )
      .bind(this.orgId, JSON.stringify(keys.map((k) => [k.type, k.id])))
      .all<Row>();
    return results.map(toVersion);
  }

  /** Newest first: an instance's versions, a type's, or the whole organization's. */
  async history(q: HistoryQuery): Promise<StoredVersion[]> {
    const where = ["org_id = ?1"];
    const args: unknown[] = [this.orgId];
    const arg = (v: unknown) => {
      args.push(v);
      return `?${args.length}`;
    };
    if (q.type) where.push(`resource_type = ${arg(q.type)}`);
    if (q.id) where.push(`id = ${arg(q.id)}`);
    if (q.since) where.push(`last_updated >= ${arg(q.since)}`);
    if (q.before) {
      const b = q.before;
      where.push(
        `(last_updated, resource_type, id, version_id) < (${arg(b.lastUpdated)}, ${arg(b.type)}, ${arg(b.id)}, ${arg(b.versionId)})`,
      );
    }
    const { results } = await this.db
      .prepare(
        `SELECT resource_type, id, version_id, last_updated, deleted, content FROM fhir_history WHERE ${where.join(" AND ")}
         ORDER BY last_updated DESC, resource_type DESC, id DESC, version_id DESC LIMIT ${arg(q.count)}`,
      )
      .bind(...args)
      .all<Row>();
    return results.map(toVersion);
  }

  /**
   * Live members of a patient's compartment, at most `limit`: of one type, or of every type but
   * AuditEvent (the record's log, not its content). Stored JSON. `newest` orders them most recently
   * updated first, so a read cut at `limit` keeps the newest (a sort a whole read does not need).
   */
  async compartmentContents(patientId: string, limit: number, opts: { type?: string; newest?: boolean } = {}): Promise<string[]> {
    const { type, newest } = opts;
    const { results } = await this.db
      .prepare(
        `SELECT r.content FROM fhir_compartment c JOIN fhir_resources r ON r.org_id = c.org_id AND r.resource_type = c.resource_type AND r.id = c.resource_id
         WHERE c.org_id = ?1 AND c.patient_id = ?2 AND r.deleted = 0 AND ${type === undefined ? "c.resource_type != 'AuditEvent'" : "c.resource_type = ?4"}
         ${newest ? "ORDER BY r.last_updated DESC, r.resource_type, r.id" : ""} LIMIT ?3`,
      )
      .bind(this.orgId, patientId, limit, ...(type === undefined ? [] : [type]))
      .all<{ content: string }>();
    return results.map((r) => r.content);
  }

  /** How many live members of a patient's compartment there are: of one type, or of every type but AuditEvent. */
  async compartmentCount(patientId: string, type?: string): Promise<number> {
    const row = await this.db
      .prepare(
        `SELECT count(*) AS n FROM fhir_compartment c JOIN fhir_resources r ON r.org_id = c.org_id AND r.resource_type = c.resource_type AND r.id = c.resource_id
         WHERE c.org_id = ?1 AND c.patient_id = ?2 AND r.deleted = 0 AND ${type === undefined ? "c.resource_type != 'AuditEvent'" : "c.resource_type = ?3"}`,
      )
      .bind(this.orgId, patientId, ...(type === undefined ? [] : [type]))
      .first<{ n: number }>();
    return row?.n ?? 0;
  }

  /**
   * Live resources that members of a patient's compartment reference (by the reference index), stored
   * JSON: of the members of `types` (all but AuditEvent when absent), or exactly of `sources` when the
   * caller read only some members (in chunks, so any number fits D1's limit on one value).
   */
  async referencedContents(patientId: string, from: { types?: readonly string[]; sources?: { type: string; id: string }[] }): Promise<string[]> {
    const targets = (members: string) =>
      `SELECT r.content FROM fhir_resources r WHERE r.org_id = ?1 AND r.deleted = 0 AND (r.resource_type, r.id) IN (SELECT x.target_type, x.target_id FROM ${members})`;
    if (!from.sources) {
      const { results } = await this.db
        .prepare(
          targets(`fhir_compartment c JOIN fhir_idx_reference x ON x.org_id = c.org_id AND x.resource_type = c.resource_type AND x.resource_id = c.resource_id
             WHERE c.org_id = ?1 AND c.patient_id = ?2 AND ${from.types ? "c.resource_type IN (SELECT value FROM json_each(?3))" : "c.resource_type != 'AuditEvent'"}`),
        )
        .bind(this.orgId, patientId, ...(from.types ? [JSON.stringify(from.types)] : []))
        .all<{ content: string }>();
      return results.map((r) => r.content);
    }
    const chunks: { type: string; id: string }[][] = [];
    for (let i = 0; i < from.sources.length; i += REFERENCE_SOURCES_PER_QUERY) chunks.push(from.sources.slice(i, i + REFERENCE_SOURCES_PER_QUERY));
    const pages = await Promise.all(
      chunks.map(async (chunk) => {
        // CROSS JOIN keeps the sources as the outer loop (the owner index answers each).
        const { results } = await this.db
          .prepare(
            targets(`json_each(?2) k CROSS JOIN fhir_idx_reference x
               ON x.org_id = ?1 AND x.resource_type = json_extract(k.value, '$[0]') AND x.resource_id = json_extract(k.value, '$[1]')`),
          )
          .bind(this.orgId, JSON.stringify(chunk.map((k) => [k.type, k.id])))
          .all<{ content: string }>();
        return results.map((r) => r.content);
      }),
    );
    // Two chunks may reference the same resource: once each.
    return chunks.length > 1 ? [...new Set(pages.flat())] : (pages[0] ?? []);
  }

  /**
   * Statements committing new versions: a handful per commit whatever its size (one per table,
   * plus an index clear per updated or deleted resource). The history primary key makes two
   * concurrent writers of the same version collide, so one batch fails whole.
   */
  writeStatements(writes: VersionWrite[]): D1PreparedStatement[] {
    const puts = writes.filter((w): w is PutVersion => w.kind === "put");
    const deletes = writes.filter((w): w is DeleteVersion => w.kind === "delete");
    const audits = writes.filter((w): w is AuditWrite => w.kind === "audit");
    const history: unknown[][] = [];
    const current: unknown[][] = [];
    for (const w of puts) {
      const { resourceType: type, id } = w.resource;
      const content = w.content ?? JSON.stringify(w.resource);
      history.push([type, id, w.versionId, w.lastUpdated, 0, w.method, content]);
      current.push([type, id, w.versionId, w.lastUpdated, content]);
    }
    for (const w of deletes) history.push([w.type, w.id, w.versionId, w.lastUpdated, 1, "DELETE", ""]);
    const out: D1PreparedStatement[] = [];
    for (const chunk of jsonChunks(history)) {
      out.push(
        this.db
          .prepare(
            `INSERT INTO fhir_history (org_id, resource_type, id, version_id, last_updated, deleted, method, content) SELECT ?1, ${jsonColumns(7)} FROM json_each(?2) j`,
          )
          .bind(this.orgId, chunk),
      );
    }
    out.push(
      ...currentRows(
        this.db,
        this.orgId,
        current,
        "DO UPDATE SET version_id = excluded.version_id, last_updated = excluded.last_updated, deleted = 0, content = excluded.content",
      ),
    );
    for (const w of deletes) {
      out.push(
        this.db
          .prepare("UPDATE fhir_resources SET version_id = ?4, last_updated = ?5, deleted = 1 WHERE org_id = ?1 AND resource_type = ?2 AND id = ?3")
          .bind(this.orgId, w.type, w.id, w.versionId, w.lastUpdated),
      );
    }
    // Old index rows go before any new ones are inserted (a resource appears once per commit). A
    // create (a re-create after a delete too: the delete cleared them) has none; an update clears
    // and refills only the tables whose rows changed.
    const indexed = puts.map((w) => {
      const rows = extractIndex(w.resource, this.definitions);
      if (!w.replaces) return { type: w.resource.resourceType, id: w.resource.id, rows, clear: [] };
      const changed = indexChanges(extractIndex(w.replaces, this.definitions), rows);
      return { type: w.resource.resourceType, id: w.resource.id, rows: changed.rows, clear: changed.tables };
    });
    for (const r of indexed) if (r.clear.length) out.push(...clearIndex(this.db, this.orgId, r.type, r.id, r.clear));
    for (const w of deletes) out.push(...clearIndex(this.db, this.orgId, w.type, w.id));
    out.push(...insertIndex(this.db, this.orgId, indexed));
    for (const chunk of jsonChunks(audits.map(pendingRow))) {
      out.push(
        this.db.prepare(`INSERT INTO fhir_audit_pending (org_id, id, recorded, content) SELECT ?1, ${jsonColumns(3)} FROM json_each(?2) j`).bind(this.orgId, chunk),
      );
    }
    return out;
  }
}
