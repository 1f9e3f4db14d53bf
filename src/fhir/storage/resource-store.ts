// Reads and writes resource versions of one organization in D1. Every statement binds org_id
// first; writes come back as statements so callers can put several in one atomic db.batch.
import { extractIndex } from "../index-extract";
import type { Resource } from "../port";
import { clearIndex, insertIndex } from "./index-statements";

export interface StoredVersion {
  resourceType: string;
  id: string;
  versionId: number;
  lastUpdated: string;
  deleted: boolean;
  content: string;
}

interface Row {
  resource_type: string;
  id: string;
  version_id: number;
  last_updated: string;
  deleted: number;
  content: string;
}

const toVersion = (r: Row): StoredVersion => ({
  resourceType: r.resource_type,
  id: r.id,
  versionId: r.version_id,
  lastUpdated: r.last_updated,
  deleted: r.deleted === 1,
  content: r.content,
});

/** Types whose resources are never updated, so they keep no history rows. */
const IMMUTABLE_TYPES = new Set(["AuditEvent"]);

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
  ) {}

  async current(type: string, id: string): Promise<StoredVersion | undefined> {
    const row = await this.db
      .prepare(
        "SELECT resource_type, id, version_id, last_updated, deleted, content FROM fhir_resources WHERE org_id = ?1 AND resource_type = ?2 AND id = ?3",
      )
      .bind(this.orgId, type, id)
      .first<Row>();
    return row ? toVersion(row) : undefined;
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

  /** Current, non-deleted resources by (type, id) pairs, in one query. */
  async many(keys: { type: string; id: string }[]): Promise<StoredVersion[]> {
    if (keys.length === 0) return [];
    const { results } = await this.db
      .prepare(
        `SELECT r.resource_type, r.id, r.version_id, r.last_updated, r.deleted, r.content FROM json_each(?2) k
         JOIN fhir_resources r ON r.org_id = ?1 AND r.resource_type = json_extract(k.value, '$[0]') AND r.id = json_extract(k.value, '$[1]')
         WHERE r.deleted = 0`,
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
   * Statements writing a new version (create when previousVersion is 0). The history primary
   * key makes two concurrent writers of the same version collide, so one batch fails whole.
   */
  writeStatements(resource: Resource & { id: string }, versionId: number, lastUpdated: string, method: string): D1PreparedStatement[] {
    const { resourceType: type, id } = resource;
    const content = JSON.stringify(resource);
    // AuditEvents are written once and never change: their current row is their whole history.
    const history = IMMUTABLE_TYPES.has(type)
      ? []
      : [
          this.db
            .prepare(
              "INSERT INTO fhir_history (org_id, resource_type, id, version_id, last_updated, deleted, method, content) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7)",
            )
            .bind(this.orgId, type, id, versionId, lastUpdated, method, content),
        ];
    return [
      ...history,
      this.db
        .prepare(
          `INSERT INTO fhir_resources (org_id, resource_type, id, version_id, last_updated, deleted, content) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)
           ON CONFLICT (org_id, resource_type, id) DO UPDATE SET version_id = excluded.version_id, last_updated = excluded.last_updated, deleted = 0, content = excluded.content`,
        )
        .bind(this.orgId, type, id, versionId, lastUpdated, content),
      ...(versionId > 1 ? clearIndex(this.db, this.orgId, type, id) : []),
      ...insertIndex(this.db, this.orgId, type, id, extractIndex(resource)),
    ];
  }

  deleteStatements(type: string, id: string, versionId: number, lastUpdated: string): D1PreparedStatement[] {
    return [
      this.db
        .prepare(
          "INSERT INTO fhir_history (org_id, resource_type, id, version_id, last_updated, deleted, method, content) VALUES (?1, ?2, ?3, ?4, ?5, 1, 'DELETE', '')",
        )
        .bind(this.orgId, type, id, versionId, lastUpdated),
      this.db
        .prepare("UPDATE fhir_resources SET version_id = ?4, last_updated = ?5, deleted = 1 WHERE org_id = ?1 AND resource_type = ?2 AND id = ?3")
        .bind(this.orgId, type, id, versionId, lastUpdated),
      ...clearIndex(this.db, this.orgId, type, id),
    ];
  }
}
