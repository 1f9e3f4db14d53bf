// SQL that replaces a resource's search index rows. Rows travel as one JSON array per table
// (expanded by json_each), so a write binds a handful of parameters whatever its size and stays
// under D1's 100-parameter limit.
import type { IndexRows } from "../index-extract";

interface TableSpec {
  table: string;
  columns: string[];
  rows: (r: IndexRows) => unknown[][];
}

const TABLES: TableSpec[] = [
  { table: "fhir_idx_string", columns: ["code", "value", "value_norm"], rows: (r) => r.string.map((x) => [x.code, x.value, x.norm]) },
  { table: "fhir_idx_token", columns: ["code", "system", "value"], rows: (r) => r.token.map((x) => [x.code, x.system, x.value]) },
  {
    table: "fhir_idx_reference",
    columns: ["code", "target_type", "target_id", "url"],
    rows: (r) => r.reference.map((x) => [x.code, x.targetType, x.targetId, x.url]),
  },
  { table: "fhir_idx_date", columns: ["code", "low", "high"], rows: (r) => r.date.map((x) => [x.code, x.low, x.high]) },
  { table: "fhir_idx_number", columns: ["code", "value", "system", "unit"], rows: (r) => r.number.map((x) => [x.code, x.value, x.system, x.unit]) },
  { table: "fhir_idx_uri", columns: ["code", "value"], rows: (r) => r.uri.map((x) => [x.code, x.value]) },
  {
    table: "fhir_idx_composite",
    columns: ["code", "system1", "value1", "system2", "value2", "num", "low", "high"],
    rows: (r) => r.composite.map((x) => [x.code, x.system1, x.value1, x.system2, x.value2, x.num, x.low, x.high]),
  },
];

const INDEX_TABLES = [...TABLES.map((t) => t.table)];

/** Statements removing every index row of one resource (before reindexing, or on delete). */
export function clearIndex(db: D1Database, orgId: string, type: string, id: string): D1PreparedStatement[] {
  return [
    ...INDEX_TABLES.map((t) =>
      db.prepare(`DELETE FROM ${t} WHERE org_id = ?1 AND resource_type = ?2 AND resource_id = ?3`).bind(orgId, type, id),
    ),
    db.prepare("DELETE FROM fhir_compartment WHERE org_id = ?1 AND resource_type = ?2 AND resource_id = ?3").bind(orgId, type, id),
  ];
}

/** Statements inserting a resource's index rows (only for the tables that receive any). */
export function insertIndex(db: D1Database, orgId: string, type: string, id: string, rows: IndexRows): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = [];
  for (const spec of TABLES) {
    const data = spec.rows(rows);
    if (data.length === 0) continue;
    const picks = spec.columns.map((_, i) => `json_extract(j.value, '$[${i}]')`).join(", ");
    out.push(
      db
        .prepare(
          `INSERT INTO ${spec.table} (org_id, resource_type, resource_id, ${spec.columns.join(", ")}) SELECT ?1, ?2, ?3, ${picks} FROM json_each(?4) j`,
        )
        .bind(orgId, type, id, JSON.stringify(data)),
    );
  }
  if (rows.patients.length) {
    out.push(
      db
        .prepare(
          "INSERT OR IGNORE INTO fhir_compartment (org_id, patient_id, resource_type, resource_id) SELECT ?1, j.value, ?2, ?3 FROM json_each(?4) j",
        )
        .bind(orgId, type, id, JSON.stringify(rows.patients)),
    );
  }
  return out;
}
