// The SQL text a search sends is part of its performance (index hints, the shape SQLite plans):
// this records every statement representative searches, conditional matches and export pages
// send (the recording made before the search's clauses became values rendered by one function),
// so a change of how the SQL is built cannot change the SQL unnoticed.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SqliteD1 } from "../../../bench/fhir/d1-sqlite";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { executeSearch, matchStatement } from "../../../src/features/fhir/search/execute";
import type { Plan } from "../../../src/features/fhir/search/page";
import { parseSearch } from "../../../src/features/fhir/search/parse";
import { exportRows } from "../../../src/features/fhir/storage/export-read";
import type { ExportQuery } from "../../../src/features/fhir/port";

const ORG = "org-sql";
const MIGRATIONS = path.join(import.meta.dirname, "../../../migrations/data");

/** [type, query, forced plan] of each search whose statements are recorded. */
const SEARCHES: [string | undefined, string, Plan?][] = [
  ["Patient", "name=smith"],
  ["Patient", "family:exact=Smith&gender=female"],
  ["Patient", "name:contains=mit"],
  ["Patient", "name=smith&_sort=family"],
  ["Patient", "gender:not=male"],
  ["Patient", "_id=a,b"],
  ["Patient", "_lastUpdated=ge2020-01-01"],
  ["Patient", "birthdate=ne2000"],
  ["Patient", "identifier=urn:sys|"],
  ["Patient", "address-city:missing=true"],
  ["Patient", "_has:Observation:patient:code=1234-5"],
  ["Patient", "_id=a&_has:Observation:patient:code=1234-5"],
  ["Patient", "name=smith&_id:not=a"],
  ["Patient", "_id=a&_lastUpdated=ge2020-01-01&birthdate=ne2000&name:contains=mit"],
  ["Patient", "name=a&_total=accurate&_count=1"],
  ["Patient", `name=${Array.from({ length: 60 }, (_, i) => `n${i}`).join(",")}`],
  ["Observation", "code=http://loinc.org|1234-5&date=ge2020-01-01&_sort=-date"],
  ["Observation", "code=http://loinc.org|1234-5&date=ge2020-01-01&_sort=-date", "general"],
  ["Observation", "code=http://loinc.org|1234-5&date=ge2020-01-01&date=lt2021-01-01&_sort=-date", "scan"],
  ["Observation", "code=http://loinc.org|1234-5&_sort=date", "scan"],
  ["Observation", "code=http://loinc.org|1234-5"],
  ["Observation", "code=http://loinc.org|1234-5&status=final", "walk"],
  ["Observation", "subject=Patient/p1&_sort=_lastUpdated", "walk"],
  ["Observation", "subject=Patient/p1&code=1234-5", "walk"],
  ["Observation", "patient.name=smith"],
  ["Observation", "patient.gender:not=male"],
  ["Observation", "value-quantity=gt5|http://unitsofmeasure.org|mg"],
  ["Observation", "code-value-quantity=1234-5$gt5"],
  ["Encounter", "patient=Patient/p1&_include=Encounter:subject&_revinclude=Observation:encounter"],
  [undefined, "_type=Patient,Observation&_lastUpdated=ge2020-01-01&_total=accurate"],
];

/** Conditional URLs matched as a conditional create or update matches them. */
const CONDITIONS: [string, string][] = [
  ["Patient", "identifier=urn:sys|1"],
  ["Patient", "family=Smith&birthdate=1970-01-01"],
  ["Observation", "subject=Patient/p1&code=http://loinc.org|1234-5"],
];

const EXPORTS: ExportQuery[] = [
  { type: "Observation", until: "2030-01-01T00:00:00.000Z", limit: 100, filters: ["code=1234-5", "status=final&subject=Patient/p1"] },
  { type: "Condition", until: "2030-01-01T00:00:00.000Z", limit: 100, compartment: { patients: ["p1", "p2"] }, since: "2020-01-01T00:00:00.000Z" },
  { type: "Provenance", until: "2030-01-01T00:00:00.000Z", limit: 100, associated: { latestOnly: true, focal: [{ type: "Patient", filters: ["gender=female"] }] } },
];

describe("the SQL of searches, matches and export pages", () => {
  let d1: SqliteD1;
  beforeAll(() => {
    d1 = new SqliteD1(":memory:");
    d1.applyMigrations(MIGRATIONS);
  });
  const recorded = async (run: () => Promise<unknown>) => {
    d1.log = [];
    await run();
    return d1.log.map(({ sql, args }) => ({ sql, args }));
  };
  const target = () => ({ db: d1 as unknown as D1Database, orgId: ORG, baseUrl: "", definitions: R4_DEFINITIONS });

  it.each(SEARCHES)("search %s?%s (plan %s)", async (type, query, plan) => {
    const params = new URLSearchParams(query);
    expect(await recorded(() => executeSearch(target(), parseSearch(R4_DEFINITIONS, type, params), params, plan))).toMatchSnapshot();
  });

  it.each(CONDITIONS)("conditional match %s?%s", async (type, query) => {
    expect(await recorded(() => matchStatement(target(), parseSearch(R4_DEFINITIONS, type, query, true), 2).all())).toMatchSnapshot();
  });

  it.each(EXPORTS.map((q, i) => [i, q] as const))("export page %i", async (_i, q) => {
    expect(await recorded(() => exportRows(d1 as unknown as D1Database, ORG, R4_DEFINITIONS, q))).toMatchSnapshot();
  });
});
