// The statements that upsert resources' current rows (fhir_resources): a commit's new versions
// (resource-store.ts) and AuditEvents stored from the pending log or the audit queue (audit-rows.ts).
import { jsonChunks, jsonColumns } from "./index-statements";

/** Inserts current rows ([type, id, version, lastUpdated, content]) with the given ON CONFLICT action. */
export function currentRows(db: D1Database, orgId: string, rows: unknown[][], onConflict: string): D1PreparedStatement[] {
  // "WHERE true" lets SQLite tell the upsert's ON CONFLICT from a join constraint.
  return jsonChunks(rows).map((chunk) =>
    db
      .prepare(
        `INSERT INTO fhir_resources (org_id, resource_type, id, version_id, last_updated, deleted, content) SELECT ?1, ${jsonColumns(4)}, 0, json_extract(j.value, '$[4]') FROM json_each(?2) j WHERE true
           ON CONFLICT (org_id, resource_type, id) ${onConflict}`,
      )
      .bind(orgId, chunk),
  );
}
