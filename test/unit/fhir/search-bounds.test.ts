// Every search reads a bounded number of rows (src/fhir/search/page.ts): on an organization with
// more resources than MAX_CANDIDATES, broad searches page through an index or are refused as
// too costly, never scan and sort the store. Plans are checked with EXPLAIN QUERY PLAN on the
// SQLite engine D1 runs.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SqliteD1 } from "../../../bench/fhir/d1-sqlite";
import { ApiError } from "../../../src/platform/errors";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { MAX_CANDIDATES } from "../../../src/features/fhir/search/args";
import { executeSearch } from "../../../src/features/fhir/search/execute";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { parseSearch } from "../../../src/features/fhir/search/parse";
import { ResourceStore, type VersionWrite } from "../../../src/features/fhir/storage/resource-store";

const ORG = "org-big";
// More patients than one search may read (MAX_CANDIDATES).
const PATIENTS = 10_500;
let d1: SqliteD1;

beforeAll(async () => {
  d1 = new SqliteD1(":memory:");
  d1.applyMigrations(path.join(import.meta.dirname, "../../../migrations/data"));
  const store = new ResourceStore(d1 as unknown as D1Database, ORG, R4_DEFINITIONS);
  const start = Date.parse("2024-01-01T00:00:00Z");
  const put = (resource: Resource & { id: string }, i: number): VersionWrite => ({ kind: "put", resource, versionId: 1, lastUpdated: new Date(start + i * 1000).toISOString(), method: "POST" });
  const writes: VersionWrite[] = [];
  for (let i = 0; i < PATIENTS; i++) {
    writes.push(put({ resourceType: "Patient", id: `p${String(i).padStart(6, "0")}`, gender: "female", name: [{ family: `fam${i}` }], birthDate: "1990-01-01" }, i));
  }
  for (let i = 0; i < 20; i++) {
    writes.push(put({ resourceType: "Observation", id: `o${i}`, status: "final", code: { text: "x" }, subject: { reference: `Patient/p${String(i).padStart(6, "0")}` } }, PATIENTS + i));
  }
  await d1.batch(store.writeStatements(writes) as never);
  // Another organization's resource, updated last: no search of ORG may see it.
  await d1.batch(new ResourceStore(d1 as unknown as D1Database, "org-other", R4_DEFINITIONS).writeStatements([put({ resourceType: "Patient", id: "x1", gender: "female" }, PATIENTS * 2)]) as never);
}, 120_000);

const search = (type: string | undefined, query: string, plan?: "general" | "scan" | "walk") => {
  const params = new URLSearchParams(query);
  return executeSearch({ db: d1 as unknown as D1Database, orgId: ORG, baseUrl: "", definitions: R4_DEFINITIONS }, parseSearch(R4_DEFINITIONS, type, params), params, plan);
};
const matches = (b: Bundle) => (b.entry ?? []).filter((e) => e.search?.mode === "match").map((e) => `${e.resource!.resourceType}/${e.resource!.id}`);
const pageQuery = () => [...d1.log].reverse().find((x) => /^SELECT r\.resource_type, r\.id, [rc]\.content/.test(x.sql))!;

async function tooCostly(run: Promise<unknown>): Promise<string> {
  const e = await run.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).status).toBe(400);
  expect((e as ApiError).code).toBe("TOO_COSTLY");
  return (e as ApiError).message;
}

describe("system-level search", () => {
  it("the store holds more than one search may read", () => {
    expect(PATIENTS).toBeGreaterThan(MAX_CANDIDATES);
  });

  it("pages through the (org, last_updated) index and stops at the page, every type, this org only", async () => {
    const first = await search(undefined, "_lastUpdated=gt2000-01-01&_count=10");
    expect(matches(first)).toEqual(Array.from({ length: 10 }, (_, i) => `Patient/p${String(i).padStart(6, "0")}`));
    const { sql, args } = pageQuery();
    const plan = d1.explain(sql, args);
    expect(plan.join("\n")).toMatch(/SEARCH r USING (COVERING )?INDEX fhir_resources_updated_idx \(org_id=\? AND last_updated>\?\)/);
    // The page is read in the index's order: nothing sorts the window.
    expect(plan.join("\n")).not.toMatch(/TEMP B-TREE/);
    // The last page, newest first: the observations, then the other org's patient never shows.
    const latest = await search(undefined, "_lastUpdated=gt2000-01-01&_sort=-_lastUpdated&_count=3");
    expect(matches(latest)).toEqual(["Observation/o19", "Observation/o18", "Observation/o17"]);
    expect(d1.explain(pageQuery().sql, pageQuery().args).join("\n")).not.toMatch(/TEMP B-TREE/);
  });

  it("a _lastUpdated range seeks its start, and next pages seek the cursor", async () => {
    const recent = await search(undefined, `_lastUpdated=ge${new Date(Date.parse("2024-01-01T00:00:00Z") + (PATIENTS + 15) * 1000).toISOString()}&_count=3`);
    expect(matches(recent)).toEqual(["Observation/o15", "Observation/o16", "Observation/o17"]);
    const next = new URL(recent.link!.find((l) => l.relation === "next")!.url, "http://x").searchParams;
    expect(matches(await search(undefined, next.toString()))).toEqual(["Observation/o18", "Observation/o19"]);
    expect(d1.explain(pageQuery().sql, pageQuery().args).join("\n")).toMatch(/fhir_resources_updated_idx \(org_id=\? AND last_updated>\? AND last_updated<\?\)|fhir_resources_updated_idx \(org_id=\? AND last_updated>\?\)/);
  });

  it("a filter matching too few of the store to fill a page is refused as too costly", async () => {
    expect(await tooCostly(search(undefined, "_id=o3,o4&_count=5"))).toMatch(/without filling its page.*_type/);
    // Over the whole store, a total cannot be counted exactly; an estimate is left out.
    expect(await tooCostly(search(undefined, "_lastUpdated=gt2000-01-01&_total=accurate"))).toMatch(/too many to count/);
    expect((await search(undefined, "_lastUpdated=gt2000-01-01&_total=estimate")).total).toBeUndefined();
  });
});

describe("type-level search over more than MAX_CANDIDATES matches", () => {
  it("without a sort an index can give, is refused rather than sorted", async () => {
    expect(await tooCostly(search("Patient", "gender=female&_sort=family"))).toMatch(/more than 10000/);
    expect(await tooCostly(search("Patient", "_sort=birthdate&_count=5"))).toMatch(/more than 10000/);
  });

  it("in id or _lastUpdated order, walks the type's index to fill the page", async () => {
    expect(matches(await search("Patient", "gender=female&_count=2"))).toEqual(["Patient/p000000", "Patient/p000001"]);
    expect(matches(await search("Patient", "_count=2&_sort=-_lastUpdated"))).toEqual([`Patient/p${String(PATIENTS - 1).padStart(6, "0")}`, `Patient/p${String(PATIENTS - 2).padStart(6, "0")}`]);
    expect(d1.explain(pageQuery().sql, pageQuery().args).join("\n")).toMatch(/USING (COVERING )?INDEX fhir_resources_type_updated_idx/);
  });

  it("a broad driver gives way to a narrower filter", async () => {
    // gender drives by rank and matches every patient; family=fam123 (a prefix: 11 names) then drives.
    const found = matches(await search("Patient", "gender=female&family=fam123&_sort=family"));
    expect(found).toHaveLength(11);
    expect(found[0]).toBe("Patient/p000123");
  });

  it("a broad driver walks first; matches too sparse for the walk's window fall back to a narrower driver", async () => {
    // gender reaches the walk's threshold: the walk reads the type in id order and stops at the page.
    d1.log = [];
    expect(matches(await search("Patient", "gender=female&birthdate=1990&_count=3"))).toEqual(["Patient/p000000", "Patient/p000001", "Patient/p000002"]);
    expect(d1.log.some((x) => x.sql.includes("INDEXED BY sqlite_autoindex_fhir_resources_1"))).toBe(true);
    // 11 of 10,500 in the window: the walk gives up, and family=fam123 drives the general plan.
    const found = matches(await search("Patient", "gender=female&family=fam123"));
    expect(found).toHaveLength(11);
    expect(found).toEqual([...found].sort());
    expect(found[0]).toBe("Patient/p000123");
  });

  it("scans over a LIKE, a ne, a chain or _has over too many rows are refused, not run whole", async () => {
    expect(await tooCostly(search("Patient", "name:contains=zz&_sort=family"))).toMatch(/10000/);
    expect(await tooCostly(search("Patient", "name:contains=zz"))).toMatch(/without filling/);
    expect(await tooCostly(search("Patient", "birthdate=ne1990-01-01"))).toMatch(/without filling/);
    expect(await tooCostly(search("Observation", "subject:Patient.gender=female"))).toMatch(/more than 10000/);
    expect(await tooCostly(search("Patient", "_has:Patient:link:gender=female&_count=5"))).toMatch(/more than 10000/);
    // Narrow inner sets still work, also past a broad filter.
    expect(matches(await search("Observation", "subject:Patient.family=fam3"))).toEqual(["Observation/o3"]);
    expect(matches(await search("Patient", "_has:Observation:subject:_id=o4,o5&gender=female&_sort=family"))).toEqual(["Patient/p000004", "Patient/p000005"]);
  });

  it("the date-ordered walk reads a bounded window too", async () => {
    expect(matches(await search("Patient", "birthdate=ge1900&_sort=-birthdate&_count=3"))).toHaveLength(3);
    const plan = d1.explain(pageQuery().sql, pageQuery().args).join("\n");
    expect(plan).toMatch(/CO-ROUTINE d\n.*fhir_idx_date_high_idx/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(await tooCostly(search("Patient", "birthdate=ge1900&name:contains=zz&_sort=-birthdate", "scan"))).toMatch(/without filling/);
  });

  it("counts at most MAX_CANDIDATES: an accurate total past it is refused, an estimate left out", async () => {
    expect(await tooCostly(search("Patient", "gender=female&_total=accurate"))).toMatch(/too many to count/);
    expect(await tooCostly(search("Patient", "_summary=count"))).toMatch(/too many to count/);
    expect((await search("Patient", "gender=female&_total=estimate&_count=1")).total).toBeUndefined();
    expect((await search("Observation", "_total=accurate&_count=1")).total).toBe(20);
    // A narrow filter counts even past a broad one.
    expect((await search("Patient", "gender=female&family=fam123&_total=accurate&_count=1")).total).toBe(11);
  });
});
