// Search and history inputs that used to reach the database unchecked: _count, paging cursors
// (tampered, truncated, another organization's), more values than D1 binds parameters, and
// system-level searches, which page through the (org, last_updated) index.
import { beforeAll, describe, expect, it } from "vitest";
import { type Tenant, createTenant } from "../support/tenants";
import { ids, post, search } from "./support";

let a: Tenant;
let b: Tenant;
const names = Array.from({ length: 130 }, (_, i) => `v${i}`);

const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const unb64url = (s: string) => JSON.parse(atob(s.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;
const cursorOf = (link: string) => new URL(link, "http://x").searchParams.get("_cursor")!;
const next = (bundle: { link?: { relation: string; url: string }[] }) => bundle.link?.find((l) => l.relation === "next")?.url;

async function outcome(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { resourceType: string; issue: { code: string; diagnostics: string }[] };
  expect(body.resourceType).toBe("OperationOutcome");
  return body.issue[0]!.diagnostics;
}

beforeAll(async () => {
  a = await createTenant();
  b = await createTenant();
  for (const family of ["v7", "v129", "Other"]) await post(a, { resourceType: "Patient", name: [{ family }] });
  // The same data in the other organization: nothing of it may show in a's results.
  for (const family of ["v7", "v129"]) await post(b, { resourceType: "Patient", name: [{ family }] });
  for (let i = 0; i < 3; i++) await post(a, { resourceType: "Observation", status: "final", code: { text: `o${i}` } });
});

describe("_count", () => {
  it("history refuses what search refuses, with a 400 OperationOutcome", async () => {
    for (const bad of ["1.5", "-2", "abc", "1e3", ""]) {
      expect(await outcome(await a.fetch(`/fhir/r4/${a.orgId}/_history?_count=${bad}`), 400)).toMatch(/_count/);
      expect(await outcome(await a.fetch(`/fhir/r4/${a.orgId}/Patient?_count=${bad}`), 400)).toMatch(/_count/);
    }
  });

  it("history pages by _count, at most 1000 entries", async () => {
    const res = await a.fetch(`/fhir/r4/${a.orgId}/_history?_count=2`);
    expect(res.status).toBe(200);
    const bundle = (await res.json()) as { entry: unknown[]; link: { relation: string; url: string }[] };
    expect(bundle.entry).toHaveLength(2);
    expect(next(bundle)).toBeDefined();
  });
});

describe("paging cursors", () => {
  it("a history cursor with missing, mistyped or extra fields is a 400", async () => {
    const base = `/fhir/r4/${a.orgId}/_history?_count=1`;
    const good = unb64url(cursorOf(next((await (await a.fetch(base)).json()) as { link: { relation: string; url: string }[] })!));
    const tampered = [
      { org: a.orgId },
      { ...good, versionId: "1; DROP TABLE fhir_history" },
      { ...good, versionId: 1.5 },
      { ...good, lastUpdated: "yesterday" },
      { ...good, id: { $gt: "" } },
      { ...good, extra: 1 },
    ];
    for (const c of tampered) expect(await outcome(await a.fetch(`${base}&_cursor=${b64url(JSON.stringify(c))}`), 400)).toMatch(/cursor/);
    for (const raw of ["%%%", "e30", b64url("[1,2]"), cursorOf(next((await (await a.fetch(base)).json()) as { link: { relation: string; url: string }[] })!).slice(0, 20)]) {
      expect(await outcome(await a.fetch(`${base}&_cursor=${raw}`), 400)).toMatch(/cursor/);
    }
  });

  it("a search cursor with tampered fields is a 400", async () => {
    const query = `Patient?_count=1`;
    const good = unb64url(cursorOf(next(await search(a, query))!));
    const tampered = [{ org: a.orgId }, { ...good, keys: "x" }, { ...good, keys: [{}] }, { ...good, keys: ["a"] }, { ...good, dir: "sideways" }, { ...good, plan: "fast" }, { ...good, id: 5 }];
    for (const c of tampered) expect(await outcome(await a.fetch(`/fhir/r4/${a.orgId}/${query}&_cursor=${b64url(JSON.stringify(c))}`), 400)).toMatch(/cursor/);
  });

  it("a cursor from one organization cannot page another", async () => {
    const searchCursor = cursorOf(next(await search(a, "Patient?_count=1"))!);
    expect(await outcome(await b.fetch(`/fhir/r4/${b.orgId}/Patient?_count=1&_cursor=${searchCursor}`), 400)).toMatch(/organization/);
    const historyCursor = cursorOf(next((await (await a.fetch(`/fhir/r4/${a.orgId}/_history?_count=1`)).json()) as { link: { relation: string; url: string }[] })!);
    expect(await outcome(await b.fetch(`/fhir/r4/${b.orgId}/_history?_count=1&_cursor=${historyCursor}`), 400)).toMatch(/organization/);
    // Rewriting the org field to b's does not let a's position through either: b's own pages only.
    const rewritten = { ...unb64url(historyCursor), org: b.orgId };
    const res = await b.fetch(`/fhir/r4/${b.orgId}/_history?_cursor=${b64url(JSON.stringify(rewritten))}`);
    const entries = ((await res.json()) as { entry?: { fullUrl: string }[] }).entry ?? [];
    for (const e of entries) expect(e.fullUrl).toContain(`/fhir/r4/${b.orgId}/`);
  });
});

describe("many values", () => {
  it("more values than D1 binds parameters, ORed or repeated, still search", async () => {
    expect((await ids(a, `Patient?name=${names.join(",")}`)).length).toBe(2);
    expect((await ids(a, `Patient?${names.map((n) => `gender:not=${n}`).join("&")}`)).length).toBe(3);
    const repeated = await a.fetch(`/fhir/r4/${a.orgId}/Patient?${names.map((n) => `name=${n}`).join("&")}`);
    expect(repeated.status).toBe(200);
    expect((await ids(a, `Patient?_id:not=${names.join(",")}&_count=10`)).length).toBe(3);
    expect((await ids(a, `Patient?_lastUpdated=${names.map(() => "gt2000-01-01").join(",")}`)).length).toBe(3);
  });

  it("past 300 values a search is a 400, not a 500", async () => {
    const many = Array.from({ length: 301 }, (_, i) => `v${i}`).join(",");
    expect(await outcome(await a.fetch(`/fhir/r4/${a.orgId}/Patient?name=${many}`), 400)).toMatch(/at most 300 values/);
    expect(await outcome(await a.fetch(`/fhir/r4/${a.orgId}/Patient?_sort=-birthdate&birthdate=${Array.from({ length: 301 }, () => "ge2000").join(",")}`), 400)).toMatch(/300/);
    // 300 dates under a date sort (the sort-ordered plan binds them twice) still run.
    const dates = Array.from({ length: 299 }, (_, i) => `ge${1700 + i}`).join(",");
    expect((await a.fetch(`/fhir/r4/${a.orgId}/Patient?_sort=-birthdate&birthdate=${dates}`)).status).toBe(200);
  });

  it("a conditional create with many values matches as the search does", async () => {
    const res = await a.fetch(`/fhir/r4/${a.orgId}/Patient`, {
      method: "POST",
      json: { resourceType: "Patient", name: [{ family: "v7" }] },
      headers: { "if-none-exist": `name=${names.join(",")}&family=v7` },
    });
    expect(res.status).toBe(200);
  });
});

describe("long string values", () => {
  // D1 refuses a LIKE or GLOB pattern over 50 bytes (the same on Cloudflare); no search value may build one.
  const long = `${"a".repeat(60)}vega`;
  const literal = `x${"%_".repeat(20)}y`;
  let c: Tenant;
  let longId: string;
  let literalId: string;
  beforeAll(async () => {
    c = await createTenant();
    longId = (await post(c, { resourceType: "Patient", name: [{ family: long }], address: [{ line: [`${"b".repeat(70)} street`], city: "Utrecht" }] })).id;
    literalId = (await post(c, { resourceType: "Patient", name: [{ family: literal }] })).id;
    // What the wildcards would match if they were read as LIKE's % and _: the same length, other characters.
    await post(c, { resourceType: "Patient", name: [{ family: `x${"ab".repeat(20)}y` }] });
  });

  it(":contains with 49 characters and more finds what holds them", async () => {
    expect(await ids(c, `Patient?name:contains=${"a".repeat(49)}`)).toEqual([longId]);
    expect(await ids(c, `Patient?family:contains=${"a".repeat(58)}veg`)).toEqual([longId]);
    expect(await ids(c, `Patient?address:contains=${"b".repeat(65)}%20str`)).toEqual([longId]);
    expect(await ids(c, `Patient?name:contains=${"a".repeat(200)}`)).toEqual([]);
  });

  it(":contains reads % and _ as themselves, however many", async () => {
    const pairs = encodeURIComponent("%_".repeat(20));
    expect(await ids(c, `Patient?family:contains=${pairs}`)).toEqual([literalId]);
    expect(await ids(c, `Patient?family:contains=${encodeURIComponent("_")}`)).toEqual([literalId]);
    expect(await ids(c, `Patient?family:contains=x${encodeURIComponent("%")}`)).toEqual([literalId]);
  });

  it("a prefix match of 60 characters and more (name=, :text) finds its resource", async () => {
    expect(await ids(c, `Patient?name=${"a".repeat(60)}`)).toEqual([longId]);
    expect(await ids(c, `Patient?family=${long.toUpperCase()}`)).toEqual([longId]);
    expect(await ids(c, `Patient?address=${"b".repeat(70)}`)).toEqual([longId]);
    expect(await ids(c, `Patient?name=${encodeURIComponent(literal)}`)).toEqual([literalId]);
    expect(await ids(c, `Observation?code:text=${"o".repeat(80)}`)).toEqual([]);
  });
});

describe("system-level search", () => {
  it("pages every type in _lastUpdated order, and only this organization's", async () => {
    const seen: string[] = [];
    let url: string | undefined = `?_lastUpdated=gt2000-01-01&_count=2`;
    const updated: string[] = [];
    while (url) {
      const res = await a.fetch(url.startsWith("?") ? `/fhir/r4/${a.orgId}${url}` : new URL(url, "http://localhost").pathname + new URL(url, "http://localhost").search);
      expect(res.status).toBe(200);
      const bundle = (await res.json()) as { entry?: { resource: { resourceType: string; id: string; meta: { lastUpdated: string } } }[]; link: { relation: string; url: string }[] };
      for (const e of bundle.entry ?? []) {
        seen.push(`${e.resource.resourceType}/${e.resource.id}`);
        updated.push(e.resource.meta.lastUpdated);
      }
      url = next(bundle);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((s) => s.startsWith("Patient/"))).toHaveLength(3);
    expect(seen.filter((s) => s.startsWith("Observation/"))).toHaveLength(3);
    expect([...updated].sort()).toEqual(updated);
  });

  it("sorts by _lastUpdated only, refusing other sorts as too costly", async () => {
    const res = await a.fetch(`/fhir/r4/${a.orgId}?_type=Patient,Observation&_sort=_id`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { issue: { code: string }[] };
    expect(body.issue[0]!.code).toBe("too-costly");
    expect((await search(a, "?_type=Patient,Observation&_sort=-_lastUpdated&_total=accurate")).total).toBe(6);
  });
});
