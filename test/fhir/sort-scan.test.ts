// The sort-ordered search plan on D1, through the API: a code matching more resources than the
// plan's threshold, filtered on a date range and sorted by it, pages in the right order (ties by
// id) both ways, and never shows another organization's identical data.
// (test/unit/fhir/sort-scan.test.ts compares the two plans query by query.)
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/features/fhir/port";
import { type Tenant, createTenant } from "../support/tenants";
import { search } from "./support";

const HOUR = 3_600_000;
const start = Date.UTC(2022, 0, 1);
let t: Tenant;
let other: Tenant;
/** id → effective instant (ms) of t's common-code observations; undefined: no date. */
const dates = new Map<string, number | undefined>();
const otherIds = new Set<string>();

async function load(tenant: Tenant): Promise<Map<string, number | undefined>> {
  const out = new Map<string, number | undefined>();
  for (let batch = 0; batch < 3; batch++) {
    // 1,050 observations of one code, three per instant (ties), a few of a rare code, two without a date.
    const entries = Array.from({ length: 350 }, (_, j) => {
      const i = batch * 350 + j;
      const at = i === 100 || i === 500 ? undefined : new Date(start + (i - (i % 3)) * HOUR).toISOString();
      const code = i % 200 === 7 ? "rare" : "8480-6";
      return { request: { method: "POST", url: "Observation" }, resource: { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code }] }, effectiveDateTime: at } };
    });
    const res = await tenant.fetch(`/fhir/r4/${tenant.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: entries } });
    expect(res.status).toBe(200);
    const bundle = (await res.json()) as Bundle;
    bundle.entry!.forEach((e, j) => {
      const r = entries[j]!.resource;
      if (r.code.coding[0]!.code === "8480-6") out.set(e.resource!.id!, r.effectiveDateTime ? Date.parse(r.effectiveDateTime) : undefined);
    });
  }
  return out;
}

beforeAll(async () => {
  t = await createTenant();
  other = await createTenant();
  for (const [id, at] of await load(t)) dates.set(id, at);
  for (const id of (await load(other)).keys()) otherIds.add(id);
}, 120_000);

const nextCursor = (b: Bundle) => {
  const cursor = new URL(b.link!.find((l) => l.relation === "next")!.url).searchParams.get("_cursor")!;
  return JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/"))) as { plan?: string };
};

const matchIds = (b: Bundle) => (b.entry ?? []).filter((e) => e.search?.mode === "match").map((e) => e.resource!.id!);
const follow = async (b: Bundle, relation: string): Promise<Bundle> => {
  const url = new URL(b.link!.find((l) => l.relation === relation)!.url);
  return search(t, `${url.pathname.split("/").pop()}${url.search}`);
};

describe("sort-ordered plan through the API", () => {
  it("pages a common code by date, descending and ascending, with ties by id, forwards and back", async () => {
    const lo = Date.UTC(2022, 0, 10);
    const hi = Date.UTC(2022, 1, 10);
    const inRange = [...dates].filter((x): x is [string, number] => x[1] !== undefined && x[1] >= lo && x[1] < hi);
    expect(inRange.length).toBeGreaterThan(100);
    for (const desc of [true, false]) {
      const expected = inRange
        .sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : desc ? y - x : x - y))
        .map(([id]) => id);
      const query = `Observation?code=http://loinc.org|8480-6&date=ge2022-01-10&date=lt2022-02-10&_sort=${desc ? "-" : ""}date&_count=7`;
      const pages = [await search(t, query)];
      for (let i = 0; i < 3; i++) pages.push(await follow(pages[i]!, "next"));
      expect(pages.map(matchIds)).toEqual([0, 1, 2, 3].map((i) => expected.slice(i * 7, i * 7 + 7)));
      // The first page chose the sort-ordered plan and its cursors say so.
      expect(nextCursor(pages[0]!).plan).toBe("scan");
      expect(matchIds(await follow(pages[3]!, "previous"))).toEqual(expected.slice(14, 21));
      for (const id of pages.flatMap(matchIds)) expect(otherIds.has(id)).toBe(false);
    }
  });

  it("without a date filter, resources without a date come first ascending, by id", async () => {
    const undated = [...dates].filter(([, at]) => at === undefined).map(([id]) => id).sort();
    const earliest = [...dates].filter((x): x is [string, number] => x[1] !== undefined).sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : x - y)).map(([id]) => id);
    const first = await search(t, "Observation?code=http://loinc.org|8480-6&_sort=date&_count=7");
    expect(nextCursor(first).plan).toBe("scan");
    expect(matchIds(first)).toEqual([...undated, ...earliest.slice(0, 5)]);
    const second = await follow(first, "next");
    expect(matchIds(second)).toEqual(earliest.slice(5, 12));
    expect(matchIds(await follow(second, "previous"))).toEqual(matchIds(first));
  });

  it("a rare code answers the same way through the general plan", async () => {
    const b = await search(t, "Observation?code=http://loinc.org|rare&date=ge2022-01-01&_sort=-date&_count=2");
    expect(matchIds(b)).toHaveLength(2);
    expect(nextCursor(b).plan).toBe("general");
  });
});
