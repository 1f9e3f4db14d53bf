// Every statement a search runs, for each search kind, reaches fhir_* rows through an index that
// the tenant leads (EXPLAIN QUERY PLAN on the SQLite engine D1 runs, with the migrations D1
// applies): no full scan, no automatic index, no index seek on fewer columns than the kind needs.
// Dropping an index a search kind relies on makes this test fail (the last block proves it).
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MemoryQueue } from "../../../bench/fhir/memory-queue";
import { SqliteD1, sqliteOrgData } from "../../../bench/fhir/d1-sqlite";
import { patientBundles } from "../../../bench/fhir/generate";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../../../src/features/fhir/index";
import { executeSearch } from "../../../src/features/fhir/search/execute";
import { parseSearch } from "../../../src/features/fhir/search/parse";
import type { Bundle } from "../../../src/features/fhir/port";
import type { FhirService } from "../../../src/features/fhir/service";
import { planViolations } from "../../support/query-plan";

const ORG = "org-plans";
const MIGRATIONS = path.join(import.meta.dirname, "../../../migrations/data");
const principal = { orgId: ORG, keyId: "k", keyName: "plans", role: "service" as const, scopes: [] };

async function loaded(patients: number): Promise<{ d1: SqliteD1; store: FhirService }> {
  const d1 = new SqliteD1(":memory:");
  d1.applyMigrations(MIGRATIONS);
  const store = fhirStoreFor(sqliteOrgData(d1, ORG, { AUDIT_QUEUE: new MemoryQueue() }), principal, { extensions: NO_FHIR_EXTENSIONS });
  for (const bundle of patientBundles({ patients, encountersPerPatient: 3, observationsPerPatient: 30, conditionsPerPatient: 3, medicationsPerPatient: 2, seed: 5 })) await store.batch(bundle);
  // Another organization's data shares every table and index.
  const other = fhirStoreFor(sqliteOrgData(d1, "org-other", { AUDIT_QUEUE: new MemoryQueue() }), { ...principal, orgId: "org-other" }, { extensions: NO_FHIR_EXTENSIONS });
  for (const bundle of patientBundles({ patients: 3, encountersPerPatient: 1, observationsPerPatient: 5, conditionsPerPatient: 1, medicationsPerPatient: 1, seed: 9 })) await other.batch(bundle);
  return { d1, store };
}

/** Runs a search and returns its bundle with the plan of every statement it sent to the database. */
async function planned(d1: SqliteD1, store: FhirService, type: string | undefined, query: string): Promise<{ bundle: Bundle; plans: { sql: string; plan: string[] }[] }> {
  d1.log = [];
  const bundle = await store.search(type, query);
  const plans = d1.log.map(({ sql, args }) => ({ sql, plan: d1.explain(sql, args) }));
  expect(plans.length).toBeGreaterThan(0);
  return { bundle, plans };
}

function expectIndexed(plans: { sql: string; plan: string[] }[]) {
  for (const { sql, plan } of plans) expect({ sql, violations: planViolations(plan) }).toEqual({ sql, violations: [] });
}

const idsOf = (b: Bundle) => (b.entry ?? []).filter((e) => e.search?.mode === "match").map((e) => e.resource!.id);
const matchCount = (b: Bundle) => (b.entry ?? []).filter((e) => e.search?.mode === "match").length;

describe("search query plans per kind", () => {
  let d1: SqliteD1;
  let store: FhirService;
  let patientId: string;
  let encounterPatient: string;
  beforeAll(async () => {
    ({ d1, store } = await loaded(30));
    const first = await store.search("Patient", "identifier=urn:bench:mrn|MRN000003");
    patientId = first.entry![0]!.resource!.id!;
    encounterPatient = patientId;
  }, 120_000);

  // [kind, type, query (a function: some need ids), whether it must match something]
  const kinds: [string, string | undefined, () => string, boolean][] = [
    ["token with system", "Observation", () => "code=http://loinc.org|8480-6", true],
    ["token without system", "Patient", () => "gender=female", true],
    ["token :not", "Observation", () => `subject=Patient/${patientId}&code:not=8480-6`, true],
    ["token identifier", "Patient", () => "identifier=urn:bench:mrn|MRN000007", true],
    ["string prefix (the issue's Patient?name=)", "Patient", () => "name=smi", false],
    ["string :exact", "Patient", () => "family:exact=Smith", false],
    ["string :contains", "Patient", () => "name:contains=mit", false],
    ["reference", "Observation", () => `subject=Patient/${patientId}`, true],
    ["reference, the issue's Observation?subject&code&_sort=-date", "Observation", () => `subject=Patient/${patientId}&code=http://loinc.org|8480-6&_sort=-date`, false],
    ["date range", "Observation", () => "date=ge2022-01-01&date=lt2022-03-01", true],
    ["date, the issue's Observation?code&date=ge", "Observation", () => "code=http://loinc.org|8867-4&date=ge2023-01-01", true],
    ["date on a birthDate", "Patient", () => "birthdate=ge1960", true],
    ["quantity", "Observation", () => "value-quantity=gt150", true],
    ["composite", "Observation", () => "code-value-quantity=http://loinc.org|8480-6$gt120", true],
    ["uri", "Questionnaire", () => "url=http://example.org/q", false],
    [":missing", "Patient", () => "birthdate:missing=false&_count=5", true],
    ["_id", "Patient", () => `_id=${patientId}`, true],
    ["_lastUpdated", "Observation", () => "_lastUpdated=gt2000-01-01&_count=5", true],
    ["chained reference", "Observation", () => "subject:Patient.identifier=urn:bench:mrn|MRN000003", true],
    ["chained string", "Encounter", () => "subject.name=smi", false],
    ["reverse chain _has", "Patient", () => "_has:Observation:subject:code=8480-6&_count=5", true],
    ["_include, the issue's Encounter?patient&_include", "Encounter", () => `patient=${encounterPatient}&_include=Encounter:subject`, true],
    ["_include:iterate", "Observation", () => `subject=Patient/${patientId}&_count=3&_include=Observation:encounter&_include:iterate=Encounter:subject`, true],
    ["_revinclude", "Patient", () => `_id=${patientId}&_revinclude=Condition:subject`, true],
    ["_sort by date, descending", "Observation", () => "code=http://loinc.org|8480-6&_sort=-date&_count=5", true],
    ["_sort by string", "Patient", () => "gender=male&_sort=family&_count=5", true],
    ["_sort by _lastUpdated", "Condition", () => "_sort=-_lastUpdated&_count=5", true],
    ["_count walk over a type", "Observation", () => "status=final&_count=5", true],
    ["_total=accurate", "Observation", () => `subject=Patient/${patientId}&_total=accurate&_count=2`, true],
    ["_summary=count", "Condition", () => "code=http://snomed.info/sct|38341003&_summary=count", false],
    ["system level _lastUpdated", undefined, () => "_lastUpdated=gt2000-01-01&_count=5", true],
    ["system level _type", undefined, () => "_type=Patient,Condition&_count=5", true],
  ];

  for (const [kind, type, query, matches] of kinds) {
    it(`${kind}: ${type ?? "(system)"}?…`, async () => {
      const { bundle, plans } = await planned(d1, store, type, query());
      if (matches) expect(matchCount(bundle) + (bundle.total ?? 0)).toBeGreaterThan(0);
      expectIndexed(plans);
    });
  }

  // The walk in id order over one system|code or one Type/id reads that filter's value index (which
  // ends with the resource id) from the cursor, not every resource of the type: same entries and
  // pages as the general plan, in the index's order (no sort), seeks only. One `:exact` string
  // too (its folded value fixed, the string value index goes on with the resource id).
  const driven: [string, string, () => string, number][] = [
    ["one code, the issue's Observation?code&date=ge", "Observation", () => "code=http://loinc.org|8867-4&date=ge2023-01-01&_count=5", 5],
    ["one reference, ids descending", "Observation", () => `subject=Patient/${patientId}&_sort=-_id&_count=5`, 5],
    ["one exact string", "Patient", () => "address-city:exact=Springfield&_count=2", 2],
  ];
  for (const [kind, type, query, count] of driven) {
    it(`the walk over ${kind} reads the filter's index in id order, page after page`, async () => {
      const forced = (q: string, plan?: "general" | "walk") => {
        const params = new URLSearchParams(q);
        return executeSearch({ db: d1 as unknown as D1Database, orgId: ORG, baseUrl: "", definitions: R4_DEFINITIONS }, parseSearch(R4_DEFINITIONS, type, params), params, plan);
      };
      const nextOf = (b: Bundle) => new URL(b.link!.find((l) => l.relation === "next")!.url, "http://x").searchParams.toString();
      d1.log = [];
      const walked = await forced(query(), "walk");
      const statement = d1.log.find((x) => x.sql.includes("SELECT DISTINCT resource_id AS id"));
      expect(statement).toBeDefined();
      const plan = d1.explain(statement!.sql, statement!.args);
      expect(planViolations(plan)).toEqual([]);
      expect(plan.join("\n")).not.toMatch(/TEMP B-TREE|fhir_resources_1 \(org_id=\? AND resource_type=\?\)/);
      const general = await forced(query(), "general");
      expect(idsOf(walked)).toHaveLength(count);
      expect(idsOf(walked)).toEqual(idsOf(general));
      // The next page: each plan's own cursor, the same entries.
      d1.log = [];
      const walkedNext = await forced(nextOf(walked));
      expect(d1.log.some((x) => x.sql.includes("SELECT DISTINCT resource_id AS id") && /resource_id [<>] \?/.test(x.sql))).toBe(true);
      expect(idsOf(walkedNext)).toEqual(idsOf(await forced(nextOf(general))));
      expect(idsOf(walkedNext)).toHaveLength(count);
    });
  }

  it("the first _include round rides in the page's batch: one round trip, each target once, the page's matches only", async () => {
    const batch = d1.batch.bind(d1);
    let trips = 0;
    d1.batch = (statements) => {
      trips++;
      return batch(statements);
    };
    try {
      d1.log = [];
      const bundle = await store.search("Encounter", `patient=${encounterPatient}&_include=Encounter:subject&_include=Encounter:patient`);
      expect(trips).toBe(1);
      const included = (bundle.entry ?? []).filter((e) => e.search?.mode === "include").map((e) => `${e.resource!.resourceType}/${e.resource!.id}`);
      expect(included).toEqual([`Patient/${encounterPatient}`]);
      expect(matchCount(bundle)).toBeGreaterThan(1);
      expectIndexed(d1.log.map(({ sql, args }) => ({ sql, plan: d1.explain(sql, args) })));
      // A page of one (its extra row read, not shown) and a _revinclude: the same entries as without the rider.
      trips = 0;
      const one = await store.search("Encounter", `patient=${encounterPatient}&_count=1&_include=Encounter:subject&_revinclude=Observation:encounter`);
      expect(trips).toBe(2);
      const firstId = one.entry!.find((e) => e.search?.mode === "match")!.resource!.id;
      const revs = await store.search("Observation", `encounter=Encounter/${firstId}&_count=1000`);
      expect(
        (one.entry ?? [])
          .filter((e) => e.search?.mode === "include")
          .map((e) => `${e.resource!.resourceType}/${e.resource!.id}`)
          .sort(),
      ).toEqual([`Patient/${encounterPatient}`, ...(revs.entry ?? []).map((e) => `Observation/${e.resource!.id}`)].sort());
      // Each match names its own encounter: only the shown match's comes, not the extra row's.
      const obs = await store.search("Observation", `subject=Patient/${patientId}&_count=1&_include=Observation:encounter`);
      const shownMatch = obs.entry!.find((e) => e.search?.mode === "match")!.resource as unknown as { encounter: { reference: string } };
      expect((obs.entry ?? []).filter((e) => e.search?.mode === "include").map((e) => `${e.resource!.resourceType}/${e.resource!.id}`)).toEqual([shownMatch.encounter.reference]);
    } finally {
      d1.batch = batch;
    }
  });

  // A string filter's matches come from its value index alone (it holds the resource id and the
  // value: migration 0023), so a page of 20 reads no fhir_idx_string row beyond the index however
  // many match; _total=estimate is one count on that index, no resource read, and with one filter
  // it equals the accurate total.
  for (const query of ["family=m", "given=j", "address=spring", "family:exact=Smith", "name=m"]) {
    it(`a string page and its estimated total read the string value index alone: Patient?${query}`, async () => {
      const accurate = await store.search("Patient", `${query}&_total=accurate&_count=1`);
      const { bundle, plans } = await planned(d1, store, "Patient", `${query}&_total=estimate&_count=1`);
      expect(idsOf(bundle)).toEqual(idsOf(accurate));
      expect(accurate.total).toBeGreaterThan(1);
      expect(bundle.total).toBe(accurate.total);
      expectIndexed(plans);
      const strings = plans.flatMap((p) => p.plan).filter((l) => /SEARCH fhir_idx_string /.test(l));
      expect(strings.length).toBeGreaterThan(0);
      for (const line of strings) expect(line).toMatch(/USING COVERING INDEX fhir_idx_string_value_idx \(org_id=\? AND resource_type=\? AND code=\? AND value_norm/);
      const estimate = plans.filter((p) => p.sql.startsWith("SELECT COUNT(*) AS n FROM (SELECT DISTINCT"));
      expect(estimate).toHaveLength(1);
      expect(estimate[0]!.plan.join("\n")).not.toMatch(/fhir_resources/);
    });
  }

  // The second page resumes at the cursor through the same indexes (keyset, not OFFSET).
  const paged: [string, string, string][] = [
    ["general plan", "Observation", "code=http://loinc.org|8480-6&_count=5"],
    ["sort-ordered plan", "Observation", "code=http://loinc.org|8480-6&_sort=date&_count=5"],
    ["walk", "Observation", "_count=5"],
  ];
  for (const [kind, type, query] of paged) {
    it(`_count paging, next page of the ${kind}`, async () => {
      const first = await store.search(type, query);
      const next = first.link?.find((l) => l.relation === "next")?.url;
      expect(next).toBeTruthy();
      const { bundle, plans } = await planned(d1, store, type, new URL(next!, "http://x").searchParams.toString());
      expect(matchCount(bundle)).toBe(5);
      expect(plans.some((p) => p.sql.includes("<") || p.sql.includes(">"))).toBe(true);
      expectIndexed(plans);
    });
  }
});

describe("the plan check", () => {
  it("fails when a search kind's index is gone", async () => {
    const { d1, store } = await loaded(2);
    for (const index of ["fhir_idx_token_value_idx", "fhir_idx_string_value_idx", "fhir_idx_reference_value_idx"]) d1.db.exec(`DROP INDEX ${index}`);
    for (const [type, query] of [
      ["Patient", "identifier=urn:bench:mrn|MRN000001"],
      ["Patient", "name=smi"],
      ["Observation", "subject=Patient/x"],
    ] as const) {
      // A statement naming the index (INDEXED BY) no longer prepares; the others scan or seek short.
      const found = await planned(d1, store, type, query).then(
        ({ plans }) => plans.flatMap((p) => planViolations(p.plan)),
        (e: Error) => [e.message],
      );
      expect(found.join("\n"), `${type}?${query}`).toMatch(/SCAN|SEARCH|no such index/);
    }
  }, 60_000);

  it("names scans, automatic indexes and short seeks, and accepts co-routines", () => {
    expect(planViolations(["SCAN r"])).toHaveLength(1);
    expect(planViolations(["SEARCH x USING AUTOMATIC COVERING INDEX (resource_id=?)"])).toHaveLength(1);
    expect(planViolations(["SEARCH x USING INDEX fhir_idx_token_owner_idx (org_id=? AND resource_type=?)"])).toHaveLength(1);
    expect(planViolations(["SEARCH x USING INDEX fhir_idx_token_value_idx (resource_type=? AND code=? AND value=?)"])).toHaveLength(1);
    expect(planViolations(["CO-ROUTINE d", "SEARCH d USING COVERING INDEX fhir_idx_date_high_idx (org_id=? AND resource_type=? AND code=?)", "SCAN d", "SCAN json_each VIRTUAL TABLE INDEX 1:"])).toEqual([]);
  });
});
