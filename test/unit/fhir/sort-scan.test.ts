// The sort-ordered plan (src/fhir/search/sort-scan.ts) against the general plan: for searches
// sorted by a date they filter on, both must return the same pages in the same order, following
// next and previous links, with ties, multi-valued and imprecise dates, deletions and updates, a
// second sort key; and neither may return another organization's rows (one with identical data).
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SqliteD1, sqliteOrgData } from "../../../bench/fhir/d1-sqlite";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../../../src/features/fhir/index";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { executeSearch } from "../../../src/features/fhir/search/execute";
import { parseSearch } from "../../../src/features/fhir/search/parse";
import { sortScanFor } from "../../../src/features/fhir/search/sort-scan";

const migrations = path.join(import.meta.dirname, "../../../migrations/data");
let d1: SqliteD1;
const orgIds: Record<"a" | "b", Set<string>> = { a: new Set(), b: new Set() };

/**
 * Deterministic observations: few distinct instants (ties), values a day wide next to the filters'
 * bounds, and "wide" rows (several values, a month, a period of days) kept within Jan 15 - Feb 25,
 * so some searches let the walk skip past a bound (farBound) and others do not.
 */
function observations(seed: number): Resource[] {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const instants = ["2022-01-10T08:00:00Z", "2022-02-01T00:00:00Z", "2022-03-05T12:30:00Z", "2022-03-05T12:30:00Z", "2022-05-14T23:59:59Z", "2022-06-01T00:00:00Z", "2021-12-31T23:00:00-02:00"];
  const effective = (i: number): Record<string, unknown> => {
    switch (i % 10) {
      case 0:
        return { effectiveDateTime: ["2022-03-05", "2022-05-14", "2022-01-03"][i % 3] };
      case 1:
        return { effectiveDateTime: "2022-02" };
      case 2:
        return { effectivePeriod: { start: "2022-02-20", end: "2022-02-25T10:00:00Z" } };
      case 3:
        return { effectiveDateTime: "2022-05-14" };
      case 4:
        // Several values for one parameter: rows that are not their resource's only one.
        return { effectiveTiming: { event: ["2022-01-15T10:00:00Z", "2022-02-05T12:30:00Z", "2022-02-01"] } };
      case 5:
        return { effectiveTiming: { event: ["2022-02-05T12:30:00Z", "2022-02-05T12:30:00Z"] } };
      case 6:
        return {};
      default:
        return { effectiveDateTime: instants[Math.floor(next() * instants.length)] };
    }
  };
  return Array.from({ length: 100 }, (_, i) => ({
    resourceType: "Observation",
    status: ["final", "amended", "preliminary"][Math.floor(next() * 3)],
    code: { coding: [{ system: "http://loinc.org", code: ["8480-6", "8480-6", "8867-4"][Math.floor(next() * 3)] }] },
    ...effective(i + Math.floor(next() * 4)),
  }));
}

async function load(org: "a" | "b", resources: Resource[]) {
  const store = fhirStoreFor(sqliteOrgData(d1, org), { orgId: org, keyId: "k", keyName: "t", role: "admin", scopes: [] }, { extensions: NO_FHIR_EXTENSIONS });
  const ids: string[] = [];
  for (const r of resources) {
    const out = await store.create(r);
    ids.push(out.resource.id!);
  }
  // Updates and deletions replace index rows (and the single-value flag with them).
  const reDate = async (id: string, effective: Record<string, unknown>) => {
    const { effectiveDateTime: _d, effectivePeriod: _p, effectiveTiming: _t, ...rest } = await store.read("Observation", id);
    await store.update({ ...rest, ...effective } as Resource & { id: string });
  };
  for (const id of ids.filter((_, i) => i % 13 === 5)) await reDate(id, { effectiveTiming: { event: ["2022-02-05T12:30:00Z", "2022-02-01"] } });
  for (const id of ids.filter((_, i) => i % 13 === 6)) await reDate(id, { effectiveDateTime: "2022-03-05T12:30:00Z" });
  for (const id of ids.filter((_, i) => i % 11 === 3)) await store.delete("Observation", id);
  for (const id of ids) orgIds[org].add(id);
}

beforeAll(async () => {
  d1 = new SqliteD1(":memory:");
  d1.applyMigrations(migrations);
  await load("a", observations(1));
  // The other organization: the same data, plus values that would sort first either way, and
  // wide rows far out (an open period), so its walks can never skip past a bound.
  const extra = (effective: Record<string, unknown>): Resource => ({ resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8480-6" }] }, ...effective });
  await load("b", [...observations(1), extra({ effectiveDateTime: "2022-03-05T12:30:00Z" }), extra({ effectivePeriod: { start: "2021-06-01" } }), extra({ effectiveDateTime: "2021" })]);
}, 120_000);

const target = (org: string) => ({ db: d1 as unknown as D1Database, orgId: org, baseUrl: `/fhir/r4/${org}`, definitions: R4_DEFINITIONS });
const matchIds = (b: Bundle) => (b.entry ?? []).filter((e) => e.search?.mode === "match").map((e) => e.resource!.id!);
const link = (b: Bundle, relation: string) => b.link?.find((l) => l.relation === relation)?.url;

/** Every page of a search under one plan, following next links, then back through previous links. */
async function walk(org: string, query: string, plan: "general" | "scan") {
  const pages: string[][] = [];
  const run = async (q: string) => {
    const params = new URLSearchParams(q);
    return executeSearch(target(org), parseSearch(R4_DEFINITIONS, "Observation", params), params, plan);
  };
  let bundle = await run(query);
  pages.push(matchIds(bundle));
  for (let next = link(bundle, "next"); next; next = link(bundle, "next")) {
    bundle = await run(new URL(next, "http://x").search.slice(1));
    pages.push(matchIds(bundle));
    if (pages.length > 200) throw new Error("paging does not end");
  }
  const back = [pages[pages.length - 1]!];
  for (let prev = link(bundle, "previous"); prev; prev = link(bundle, "previous")) {
    bundle = await run(new URL(prev, "http://x").search.slice(1));
    back.unshift(matchIds(bundle));
    if (back.length > 200) throw new Error("paging back does not end");
  }
  return { pages, back };
}

const FILTERS = [
  "date=ge2022-03-01",
  "date=lt2022-03-06",
  "date=ge2022-02-01&date=lt2022-05-15",
  "date=ge2022-01-02&date=lt2022-12-31",
  "date=eq2022-03",
  "date=le2022-03-05&date=gt2022-01-31",
  // Day-wide values starting just below the bound / ending just above it.
  "date=lt2022-05-14T00:00:00.001Z",
  "date=ge2022-01-03T23:59:59.999Z",
  "date=le2022-05-13T23:59:59.999Z",
  "date=sa2022-02-28,eb2022-01-31",
  "date=ne2022-03-05",
  "date=ap2022-03-05",
  "date:missing=false",
  "code=http://loinc.org|8480-6&date=ge2022-02-01&date=lt2022-05-15",
  "code:not=8867-4&status=final,amended&date=ge2022-01-01",
  // No filter requiring a date: resources without one come last (descending) or first.
  "code=http://loinc.org|8480-6",
  "status=final,preliminary",
  "",
];
const SORTS = ["-date", "date", "-date,status", "date,-status", "-date,-_lastUpdated"];

describe("sort-ordered plan vs general plan", () => {
  it("applies to a first sort key on a date parameter; complete when a filter requires a value", () => {
    const shape = (q: string) => {
      const scan = sortScanFor(parseSearch(R4_DEFINITIONS, "Observation", q));
      return scan && (scan.complete ? "complete" : "with undated");
    };
    expect(shape("date=ge2022&_sort=-date")).toBe("complete");
    expect(shape("date:missing=false&_sort=date")).toBe("complete");
    expect(shape("code=8480-6&_sort=-date")).toBe("with undated");
    expect(shape("_sort=date")).toBe("with undated");
    expect(shape("date=ge2022&_sort=status,-date")).toBeUndefined();
    expect(shape("date=ge2022&_sort=-_lastUpdated")).toBeUndefined();
    expect(shape("date:missing=true&_sort=date")).toBeUndefined();
  });

  it("returns the same pages in the same order, forwards and backwards, for both organizations", async () => {
    let compared = 0;
    for (const filter of FILTERS) {
      for (const sort of SORTS) {
        for (const count of [4, 1000]) {
          const q = `${filter}&_sort=${sort}&_count=${count}`;
          for (const org of ["a", "b"] as const) {
            const general = await walk(org, q, "general");
            const scan = await walk(org, q, "scan");
            expect(scan.pages, `${org}: ${q}`).toEqual(general.pages);
            expect(scan.back, `${org}: ${q} (previous links)`).toEqual(general.pages);
            const all = general.pages.flat();
            expect(new Set(all).size, `${org}: ${q} repeats a resource`).toBe(all.length);
            for (const id of [...all, ...scan.pages.flat()]) expect(orgIds[org].has(id), `${org}: ${q} returned ${id}`).toBe(true);
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(FILTERS.length * SORTS.length * 2 * 2);
  }, 120_000);

  it("has results to compare: ties, several pages, rows that are not their resource's only value", async () => {
    const { pages } = await walk("a", "date=ge2022-01-01&_sort=-date&_count=4", "scan");
    expect(pages.length).toBeGreaterThan(5);
    const multi = d1.db.prepare("SELECT COUNT(*) AS n FROM fhir_idx_date WHERE org_id = 'a' AND single = 0").get() as { n: number };
    expect(multi.n).toBeGreaterThan(5);
    const ties = d1.db
      .prepare("SELECT MAX(n) AS n FROM (SELECT COUNT(*) AS n FROM fhir_idx_date WHERE org_id = 'a' AND code = 'date' GROUP BY high)")
      .get() as { n: number };
    expect(ties.n).toBeGreaterThan(3);
  });

  it("a cursor keeps working when the plan changes between pages", async () => {
    const q = "date=ge2022-02-01&date=lt2022-05-15&_sort=-date&_count=3";
    const params = new URLSearchParams(q);
    const first = await executeSearch(target("a"), parseSearch(R4_DEFINITIONS, "Observation", params), params, "general");
    const next = new URLSearchParams(new URL(link(first, "next")!, "http://x").search);
    const viaScan = await executeSearch(target("a"), parseSearch(R4_DEFINITIONS, "Observation", next), next, "scan");
    const viaGeneral = await executeSearch(target("a"), parseSearch(R4_DEFINITIONS, "Observation", next), next, "general");
    expect(matchIds(viaScan)).toEqual(matchIds(viaGeneral));
    expect(matchIds(viaScan)).toHaveLength(3);
  });
});

describe("plan choice", () => {
  it("walks the date index when the driving filter matches many resources, and not when it matches few", async () => {
    const store = fhirStoreFor(sqliteOrgData(d1, "c"), { orgId: "c", keyId: "k", keyName: "t", role: "admin", scopes: [] }, { extensions: NO_FHIR_EXTENSIONS });
    const entry = (code: string, i: number) => ({
      request: { method: "POST", url: "Observation" },
      resource: { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code }] }, effectiveDateTime: new Date(Date.UTC(2022, 0, 1) + i * 3_600_000).toISOString() },
    });
    const entries = [...Array.from({ length: 1100 }, (_, i) => entry("8480-6", i)), ...Array.from({ length: 5 }, (_, i) => entry("rare", i * 97))];
    for (let i = 0; i < entries.length; i += 500) await store.batch({ resourceType: "Bundle", type: "transaction", entry: entries.slice(i, i + 500) });
    const pageQuery = () => [...d1.log].reverse().find((x) => /^SELECT r\.resource_type, r\.id, r\.content/.test(x.sql))!.sql;
    const run = (q: string, plan?: "general" | "scan") => {
      const params = new URLSearchParams(q);
      return executeSearch(target("c"), parseSearch(R4_DEFINITIONS, "Observation", params), params, plan);
    };
    const common = "code=http://loinc.org|8480-6&date=ge2022-01-10&date=lt2022-02-10&_sort=-date&_count=5";
    const chosen = await run(common);
    expect(pageQuery()).toContain("FROM fhir_idx_date d INDEXED BY fhir_idx_date_high_idx");
    expect(matchIds(chosen)).toEqual(matchIds(await run(common, "general")));
    // The next page keeps the plan without counting again.
    const next = new URLSearchParams(new URL(link(chosen, "next")!, "http://x").search);
    const logged = d1.log.length;
    await executeSearch(target("c"), parseSearch(R4_DEFINITIONS, "Observation", next), next);
    expect(d1.log.slice(logged).map((x) => x.sql).some((sql) => sql.startsWith("SELECT COUNT(*) AS n FROM (SELECT 1 FROM"))).toBe(false);
    expect(pageQuery()).toContain("FROM fhir_idx_date d");
    await run("code=rare&date=ge2022-01-01&_sort=-date&_count=5");
    expect(pageQuery()).toContain("FROM fhir_resources r WHERE");
    // The walk binds the sort parameter's filters twice: past D1's 100 parameters the rest travel in one JSON parameter.
    const many = `date=${Array.from({ length: 30 }, (_, i) => `ge2022-01-${String(i + 1).padStart(2, "0")}`).join(",")}&_sort=-date&_count=5`;
    const forced = await run(many, "scan");
    expect(pageQuery()).toContain("FROM fhir_idx_date d");
    expect([...d1.log].reverse().find((x) => x.sql === pageQuery())!.args.length).toBe(100);
    expect(matchIds(forced)).toEqual(matchIds(await run(many, "general")));
  }, 60_000);
});
