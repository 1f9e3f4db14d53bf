// SQL that replaces resources' search index rows. Rows travel as JSON arrays expanded by
// json_each, one statement per index table for a whole commit, so a write binds a handful of
// parameters whatever its size (D1 binds at most 100) and a transaction of a hundred resources
// sends a dozen statements rather than a thousand.
import { D1_MAX_VALUE_BYTES, utf8Exceeds } from "../../../platform/db/size";
import { tooLargeToStore } from "../../../platform/errors";
import type { IndexRows } from "../index-extract";

type RowKind = Exclude<keyof IndexRows, "patients">;

interface TableSpec {
  table: string;
  kind: RowKind;
  columns: string[];
  rows: (r: IndexRows) => unknown[][];
}

/** Each row with single = 1 when it is the only row of its code, else 0. */
function withSingle<T extends { code: string }>(rows: T[]): (T & { single: number })[] {
  const counts = new Map<string, number>();
  for (const x of rows) counts.set(x.code, (counts.get(x.code) ?? 0) + 1);
  return rows.map((x) => ({ ...x, single: counts.get(x.code) === 1 ? 1 : 0 }));
}

const TABLES: TableSpec[] = [
  { table: "fhir_idx_string", kind: "string", columns: ["code", "value", "value_norm"], rows: (r) => r.string.map((x) => [x.code, x.value, x.norm]) },
  { table: "fhir_idx_token", kind: "token", columns: ["code", "system", "value"], rows: (r) => r.token.map((x) => [x.code, x.system, x.value]) },
  {
    table: "fhir_idx_reference",
    kind: "reference",
    columns: ["code", "target_type", "target_id", "url"],
    rows: (r) => r.reference.map((x) => [x.code, x.targetType, x.targetId, x.url]),
  },
  // single: the resource's only value for that parameter (sort-ordered scans trust such a row alone).
  { table: "fhir_idx_date", kind: "date", columns: ["code", "low", "high", "single"], rows: (r) => withSingle(r.date).map((x) => [x.code, x.low, x.high, x.single]) },
  { table: "fhir_idx_number", kind: "number", columns: ["code", "value", "system", "unit"], rows: (r) => r.number.map((x) => [x.code, x.value, x.system, x.unit]) },
  { table: "fhir_idx_uri", kind: "uri", columns: ["code", "value"], rows: (r) => r.uri.map((x) => [x.code, x.value]) },
  {
    table: "fhir_idx_composite",
    kind: "composite",
    columns: ["code", "system1", "value1", "system2", "value2", "num", "low", "high"],
    rows: (r) => r.composite.map((x) => [x.code, x.system1, x.value1, x.system2, x.value2, x.num, x.low, x.high]),
  },
];

const INDEX_TABLES = [...TABLES.map((t) => t.table)];
const COMPARTMENT = "fhir_compartment";

/** A resource's index rows, to insert. */
export interface IndexedResource {
  type: string;
  id: string;
  rows: IndexRows;
}

/**
 * Bytes of JSON per bound parameter: well under D1's 2 MB value limit, so a commit of any size
 * becomes several statements of one shape.
 */
const CHUNK_BYTES = 512 * 1024;

/**
 * Splits rows into JSON arrays of at most CHUNK_BYTES (a single larger row gets its own). A row
 * whose JSON D1 could not bind (escaping can double a resource's text, an index row holds a string
 * twice) is a 413, not SQLITE_TOOBIG; resources under MAX_RESOURCE_BYTES rarely get near it.
 */
export function jsonChunks(rows: unknown[][]): string[] {
  const out: string[] = [];
  let parts: string[] = [];
  let size = 2;
  for (const row of rows) {
    const json = JSON.stringify(row);
    if (utf8Exceeds(json, D1_MAX_VALUE_BYTES - 2)) {
      throw tooLargeToStore(`A value of this write is over the ${D1_MAX_VALUE_BYTES} bytes the database binds; shorten its longest text or move it to a Binary`);
    }
    if (parts.length && size + json.length + 1 > CHUNK_BYTES) {
      out.push(`[${parts.join(",")}]`);
      parts = [];
      size = 2;
    }
    parts.push(json);
    size += json.length + 1;
  }
  if (parts.length) out.push(`[${parts.join(",")}]`);
  return out;
}

/** "json_extract(j.value, '$[0]'), ..." for n columns. */
export const jsonColumns = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `json_extract(j.value, '$[${from + i}]')`).join(", ");

/** Statements removing every index row of the resources of one type whose ids are the JSON array `idsJson`. */
export function clearIndexOfMany(db: D1Database, orgId: string, type: string, idsJson: string): D1PreparedStatement[] {
  return [...INDEX_TABLES, COMPARTMENT].map((t) =>
    db.prepare(`DELETE FROM ${t} WHERE org_id = ?1 AND resource_type = ?2 AND resource_id IN (SELECT value FROM json_each(?3))`).bind(orgId, type, idsJson),
  );
}

/**
 * Statements removing one resource's index rows: from every index table and its compartment
 * membership (on delete), or from the given tables only (an update's changed ones).
 */
export function clearIndex(db: D1Database, orgId: string, type: string, id: string, tables: string[] = [...INDEX_TABLES, COMPARTMENT]): D1PreparedStatement[] {
  return tables.map((t) => db.prepare(`DELETE FROM ${t} WHERE org_id = ?1 AND resource_type = ?2 AND resource_id = ?3`).bind(orgId, type, id));
}

/** Rows of one kind as comparable text, in a stable order (the extractor's order is not part of what is stored). */
const rowsKey = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort().join("\n");

/**
 * What an update rewrites: the tables (the compartment included) whose rows differ between the
 * version it replaces and its own, and the new version's rows for those tables only (the others'
 * are empty). A table whose rows did not change keeps them as stored: deleting and inserting
 * them again wrote the same rows (each with its b-trees) on every update. A changed table is
 * replaced whole, so its stored rows end as the extractor derives them, duplicates included.
 */
export function indexChanges(before: IndexRows, after: IndexRows): { tables: string[]; rows: IndexRows } {
  const tables: string[] = [];
  const rows: IndexRows = { string: [], token: [], reference: [], date: [], number: [], uri: [], composite: [], patients: [] };
  for (const spec of TABLES) {
    if (rowsKey(spec.rows(before)) === rowsKey(spec.rows(after))) continue;
    tables.push(spec.table);
    (rows[spec.kind] as unknown[]) = after[spec.kind];
  }
  if ([...before.patients].sort().join() !== [...after.patients].sort().join()) {
    tables.push(COMPARTMENT);
    rows.patients = after.patients;
  }
  return { tables, rows };
}

/**
 * Statements inserting the index rows of several resources: one per table that receives any (per
 * chunk). `where`: a condition on each row `j` (its [type, id, ...] as JSON), e.g. "not stored yet".
 */
export function insertIndex(db: D1Database, orgId: string, resources: IndexedResource[], where?: string): D1PreparedStatement[] {
  const filter = where ? ` WHERE ${where}` : "";
  const out: D1PreparedStatement[] = [];
  const insert = (table: string, columns: string[], rows: unknown[][]) => {
    for (const chunk of jsonChunks(rows)) {
      out.push(
        db
          .prepare(`INSERT INTO ${table} (org_id, resource_type, resource_id, ${columns.join(", ")}) SELECT ?1, ${jsonColumns(columns.length + 2)} FROM json_each(?2) j${filter}`)
          .bind(orgId, chunk),
      );
    }
  };
  for (const spec of TABLES) {
    const rows = resources.flatMap((r) => spec.rows(r.rows).map((cols) => [r.type, r.id, ...cols]));
    if (rows.length) insert(spec.table, spec.columns, rows);
  }
  const members = resources.flatMap((r) => r.rows.patients.map((patient) => [r.type, r.id, patient]));
  for (const chunk of jsonChunks(members)) {
    out.push(
      db
        .prepare(`INSERT OR IGNORE INTO fhir_compartment (org_id, resource_type, resource_id, patient_id) SELECT ?1, ${jsonColumns(3)} FROM json_each(?2) j${filter}`)
        .bind(orgId, chunk),
    );
  }
  return out;
}
