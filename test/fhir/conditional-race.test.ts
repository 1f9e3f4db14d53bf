// Conditional writes racing each other: identical If-None-Exist creates, conditional
// updates and transactions sent at once must leave exactly one resource; updates without
// If-Match sent at once (conditional or by id) must each be applied, in a version of its own.
import { describe, expect, it } from "vitest";
import { type Tenant, createTenant } from "../support/tenants";

const post = (t: Tenant, path: string, body: unknown, headers: Record<string, string> = {}) =>
  t.fetch(`/fhir/r4/${t.orgId}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/fhir+json", ...headers } });

async function count(t: Tenant, query: string): Promise<number> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${query}${query.includes("?") ? "&" : "?"}_total=accurate`);
  return ((await res.json()) as { total: number }).total;
}

describe("conditional writes under concurrency", () => {
  it("creates one resource for many simultaneous identical If-None-Exist creates", async () => {
    const t = await createTenant();
    const practitioner = { resourceType: "Practitioner", identifier: [{ system: "urn:npi", value: "1234" }], name: [{ family: "Doc" }] };
    const results = await Promise.all(Array.from({ length: 8 }, () => post(t, "/Practitioner", practitioner, { "if-none-exist": "identifier=urn:npi|1234" })));
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(await count(t, "Practitioner?identifier=urn:npi|1234")).toBe(1);
  });

  it("creates one resource for simultaneous conditional updates and transactions", async () => {
    const t = await createTenant();
    const patient = { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "77" }], name: [{ family: "Race" }] };
    const puts = Array.from({ length: 4 }, () =>
      t.fetch(`/fhir/r4/${t.orgId}/Patient?identifier=urn:mrn|77`, { method: "PUT", body: JSON.stringify(patient), headers: { "content-type": "application/fhir+json" } }),
    );
    const transactions = Array.from({ length: 4 }, () =>
      post(t, "", { resourceType: "Bundle", type: "transaction", entry: [{ resource: patient, request: { method: "PUT", url: "Patient?identifier=urn:mrn|77" } }] }),
    );
    const results = await Promise.all([...puts, ...transactions]);
    expect(results.map((r) => r.status).every((s) => s === 200 || s === 201)).toBe(true);
    expect(await count(t, "Patient?identifier=urn:mrn|77")).toBe(1);
  });
});

describe("updates without If-Match under concurrency", () => {
  const RACERS = 50;
  // 50 writers of one resource take turns on its write lease: a wait on a busy machine, not a failure.
  const WAIT_MS = 60_000;
  const put = (t: Tenant, path: string, body: unknown) =>
    t.fetch(`/fhir/r4/${t.orgId}${path}`, { method: "PUT", body: JSON.stringify(body), headers: { "content-type": "application/fhir+json" } });
  const patient = (mrn: string, i: number) => ({ resourceType: "Patient", identifier: [{ system: "urn:mrn", value: mrn }], name: [{ family: "Race", given: [`racer-${i}`] }] });

  /** The racer marks of every version of the resource, oldest first. */
  async function history(t: Tenant, id: string): Promise<{ versionId: string; given: string }[]> {
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${id}/_history?_count=1000`);
    const bundle = (await res.json()) as { entry: { resource: { meta: { versionId: string }; name?: { given?: string[] }[] } }[] };
    return bundle.entry.map((e) => ({ versionId: e.resource.meta.versionId, given: e.resource.name?.[0]?.given?.[0] ?? "" })).reverse();
  }

  function expectEveryUpdateKept(versions: { versionId: string; given: string }[], first: number) {
    expect(versions.map((v) => Number(v.versionId))).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1));
    // Each racer's body is exactly one version: none lost, none applied twice.
    const racers = versions.slice(first).map((v) => v.given).sort();
    expect(racers).toEqual(Array.from({ length: RACERS }, (_, i) => `racer-${i}`).sort());
  }

  it(`${RACERS} conditional updates of one existing patient at once: every one applied, in its own version`, async () => {
    const t = await createTenant();
    const created = (await (await post(t, "/Patient", patient("C1", -1))).json()) as { id: string };
    const statuses = await Promise.all(Array.from({ length: RACERS }, (_, i) => put(t, "/Patient?identifier=urn:mrn|C1", patient("C1", i)).then((r) => r.status)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(await count(t, "Patient?identifier=urn:mrn|C1")).toBe(1);
    expectEveryUpdateKept(await history(t, created.id), 1);
  }, WAIT_MS);

  it(`${RACERS} conditional updates that match nothing yet: one creates, the others update it`, async () => {
    const t = await createTenant();
    const statuses = await Promise.all(Array.from({ length: RACERS }, (_, i) => put(t, "/Patient?identifier=urn:mrn|C2", patient("C2", i)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
    const found = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient?identifier=urn:mrn|C2`)).json()) as { entry: { resource: { id: string } }[] };
    expect(found.entry).toHaveLength(1);
    expectEveryUpdateKept(await history(t, found.entry[0]!.resource.id), 0);
  }, WAIT_MS);

  it(`${RACERS} updates by id at once: every one applied, in its own version`, async () => {
    const t = await createTenant();
    const created = (await (await post(t, "/Patient", patient("C3", -1))).json()) as { id: string };
    const statuses = await Promise.all(Array.from({ length: RACERS }, (_, i) => put(t, `/Patient/${created.id}`, { ...patient("C3", i), id: created.id }).then((r) => r.status)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expectEveryUpdateKept(await history(t, created.id), 1);
  }, WAIT_MS);
});
