// An update rewrites only the index tables whose rows changed (storage/index-statements.ts,
// indexChanges): what is stored afterwards must equal what indexing the new version from scratch
// stores, table by table, while the statements touch only the changed tables. Runs on the SQLite
// engine D1 runs, over the data migrations.
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { SqliteD1 } from "../../../bench/fhir/d1-sqlite";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import type { Resource } from "../../../src/features/fhir/port";
import { ResourceStore, type VersionWrite } from "../../../src/features/fhir/storage/resource-store";

const TABLES = [
  "fhir_idx_string",
  "fhir_idx_token",
  "fhir_idx_reference",
  "fhir_idx_date",
  "fhir_idx_number",
  "fhir_idx_uri",
  "fhir_idx_composite",
  "fhir_compartment",
];
const ORG = "org-a";
const FRESH = "org-fresh";
const OTHER = "org-other";
let d1: SqliteD1;

beforeEach(() => {
  d1 = new SqliteD1(":memory:");
  d1.applyMigrations(path.join(import.meta.dirname, "../../../migrations/data"));
});

const store = (org: string) => new ResourceStore(d1 as unknown as D1Database, org, R4_DEFINITIONS);
type Stored = Resource & { id: string };
const put = (resource: Stored, versionId: number, replaces?: Stored): VersionWrite => ({
  kind: "put",
  resource: { ...resource, meta: { versionId: String(versionId), lastUpdated: `2024-01-0${versionId}T00:00:00.000Z` } },
  versionId,
  lastUpdated: `2024-01-0${versionId}T00:00:00.000Z`,
  method: versionId === 1 ? "POST" : "PUT",
  ...(replaces ? { replaces: { ...replaces, meta: { versionId: String(versionId - 1), lastUpdated: `2024-01-0${versionId - 1}T00:00:00.000Z` } } } : {}),
});

/** One resource's rows of every index table, without the org column, sorted: comparable across orgs. */
function indexRows(org: string, type: string, id: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) {
    const rows = d1.statement(`SELECT * FROM ${t} WHERE org_id = ? AND resource_type = ? AND resource_id = ?`).all(org, type, id) as Record<string, unknown>[];
    out[t] = rows.map(({ org_id: _org, ...rest }) => JSON.stringify(rest)).sort();
  }
  return out;
}

/** Writes v1 then v2 (an update replacing v1) in ORG, v2 alone in FRESH; answers the update's statements. */
async function updateAndCompare(v1: Stored, v2: Stored): Promise<string[]> {
  await d1.batch(store(ORG).writeStatements([put(v1, 1)]) as never);
  // The same resource in another organization, never updated: an update must leave it alone.
  await d1.batch(store(OTHER).writeStatements([put(v1, 1)]) as never);
  const other = indexRows(OTHER, v1.resourceType, v1.id);
  const statements = sqlOf(store(ORG).writeStatements([put(v2, 2, v1)]));
  await d1.batch(store(ORG).writeStatements([put(v2, 2, v1)]) as never);
  await d1.batch(store(FRESH).writeStatements([put(v2, 2)]) as never);
  expect(indexRows(ORG, v2.resourceType, v2.id)).toEqual(indexRows(FRESH, v2.resourceType, v2.id));
  expect(indexRows(OTHER, v1.resourceType, v1.id)).toEqual(other);
  return statements;
}

const sqlOf = (statements: D1PreparedStatement[]) => (statements as unknown as { sql: string }[]).map((s) => s.sql);

const tablesWritten = (sqls: string[]) => [...new Set(sqls.flatMap((s) => /^(?:DELETE FROM|INSERT(?: OR IGNORE)? INTO) (fhir_(?:idx_\w+|compartment))\b/.exec(s)?.[1] ?? []))].sort();

const patient: Stored = {
  resourceType: "Patient",
  id: "p1",
  identifier: [{ system: "urn:mrn", value: "1" }],
  gender: "female",
  birthDate: "1990-01-01",
  name: [{ family: "Old", given: ["Ann"] }],
  generalPractitioner: [{ reference: "Practitioner/d1" }],
};

describe("an update rewrites only the index tables that changed", () => {
  it("a new given name: the string table alone, and the rows equal a fresh index of the new version", async () => {
    const sqls = await updateAndCompare(patient, { ...patient, name: [{ family: "Old", given: ["Bea"] }] });
    expect(tablesWritten(sqls)).toEqual(["fhir_idx_string"]);
    // Version row, current row, the string table's delete and insert.
    expect(sqls).toHaveLength(4);
  });

  it("the same content again: no index statement at all", async () => {
    const sqls = await updateAndCompare(patient, { ...patient });
    expect(tablesWritten(sqls)).toEqual([]);
    expect(sqls).toHaveLength(2);
  });

  it("values dropped and added across tables: each changed table replaced, the unchanged ones untouched", async () => {
    const { birthDate: _b, identifier: _i, ...rest } = patient;
    const sqls = await updateAndCompare(patient, { ...rest, gender: "male", telecom: [{ system: "phone", value: "555" }] });
    expect(tablesWritten(sqls)).toEqual(["fhir_idx_date", "fhir_idx_token"]);
  });

  it("an Observation moving to another patient: its compartment membership and reference rows follow", async () => {
    const obs: Stored = {
      resourceType: "Observation",
      id: "o1",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] },
      subject: { reference: "Patient/p1" },
      effectiveDateTime: "2024-01-01",
      valueQuantity: { value: 60, unit: "/min", system: "http://unitsofmeasure.org", code: "/min" },
    };
    const moved = await updateAndCompare(obs, { ...obs, subject: { reference: "Patient/p2" } });
    expect(tablesWritten(moved)).toEqual(["fhir_compartment", "fhir_idx_reference"]);
    expect(d1.statement("SELECT patient_id FROM fhir_compartment WHERE org_id = ? AND resource_id = 'o1'").all(ORG)).toEqual([{ patient_id: "p2" }]);
  });

  it("a changed value of a composite and a quantity rewrites those tables", async () => {
    const obs: Stored = {
      resourceType: "Observation",
      id: "o2",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] },
      subject: { reference: "Patient/p1" },
      valueQuantity: { value: 60, unit: "/min", system: "http://unitsofmeasure.org", code: "/min" },
    };
    const sqls = await updateAndCompare(obs, { ...obs, valueQuantity: { ...(obs.valueQuantity as object), value: 72 } });
    expect(tablesWritten(sqls)).toEqual(["fhir_idx_composite", "fhir_idx_number"]);
  });

  it("a create and a re-create after a delete send no index delete", async () => {
    const created = store(ORG).writeStatements([put(patient, 1)]);
    await d1.batch(created as never);
    await d1.batch(store(ORG).writeStatements([{ kind: "delete", type: "Patient", id: "p1", versionId: 2, lastUpdated: "2024-01-02T00:00:00.000Z" }]) as never);
    expect(Object.values(indexRows(ORG, "Patient", "p1")).flat()).toEqual([]);
    const again = store(ORG).writeStatements([put(patient, 3)]);
    await d1.batch(again as never);
    expect(sqlOf(created).filter((s) => s.startsWith("DELETE"))).toEqual([]);
    expect(sqlOf(again).filter((s) => s.startsWith("DELETE"))).toEqual([]);
    await d1.batch(store(FRESH).writeStatements([put(patient, 1)]) as never);
    expect(indexRows(ORG, "Patient", "p1")).toEqual(indexRows(FRESH, "Patient", "p1"));
  });
});
