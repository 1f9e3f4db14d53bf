// If-Match under concurrency: of writers racing with the same version, one wins and
// every loser gets 412 Precondition Failed (its precondition no longer holds), never 409.
import { describe, expect, it } from "vitest";
import { createTenant, type Tenant } from "../support/tenants";
import { post } from "./support";

const RACERS = 8;

async function race(t: Tenant, path: string, init: (i: number) => RequestInit & { json?: unknown }) {
  const statuses = await Promise.all(Array.from({ length: RACERS }, (_, i) => t.fetch(path, init(i)).then((r) => r.status)));
  return statuses.sort();
}

describe("If-Match races", () => {
  it("updates: one 200, the rest 412", async () => {
    const t = await createTenant();
    for (let round = 0; round < 3; round++) {
      const p = await post(t, { resourceType: "Patient", name: [{ family: "Race" }] });
      const statuses = await race(t, `/fhir/r4/${t.orgId}/Patient/${p.id}`, (i) => ({
        method: "PUT",
        headers: { "if-match": 'W/"1"' },
        json: { resourceType: "Patient", id: p.id, name: [{ family: `Racer${i}` }] },
      }));
      expect(statuses).toEqual([200, ...Array(RACERS - 1).fill(412)]);
    }
  });

  it("patches and deletes: one winner, the rest 412", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Race" }] });
    const patches = await race(t, `/fhir/r4/${t.orgId}/Patient/${p.id}`, (i) => ({
      method: "PATCH",
      headers: { "content-type": "application/json-patch+json", "if-match": 'W/"1"' },
      body: JSON.stringify([{ op: "replace", path: "/name/0/family", value: `P${i}` }]),
    }));
    expect(patches).toEqual([200, ...Array(RACERS - 1).fill(412)]);
    const deletes = await race(t, `/fhir/r4/${t.orgId}/Patient/${p.id}`, () => ({ method: "DELETE", headers: { "if-match": 'W/"2"' } }));
    expect(deletes.filter((s) => s === 412)).toHaveLength(RACERS - 1);
    expect(deletes.filter((s) => s !== 412).every((s) => s === 200 || s === 204)).toBe(true);
  });
});

describe("If-Match in transactions", () => {
  it("a PATCH or DELETE entry with a stale If-Match fails the whole transaction with 412", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Before" }] });
    const patch = btoa(JSON.stringify([{ op: "replace", path: "/name/0/family", value: "After" }]));
    for (const entry of [
      { resource: { resourceType: "Binary", contentType: "application/json-patch+json", data: patch }, request: { method: "PATCH", url: `Patient/${p.id}`, ifMatch: 'W/"9"' } },
      { request: { method: "DELETE", url: `Patient/${p.id}`, ifMatch: 'W/"9"' } },
    ]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [entry] } });
      expect(res.status).toBe(412);
    }
    const read = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`)).json()) as { meta: { versionId: string }; name: { family: string }[] };
    expect(read).toMatchObject({ meta: { versionId: "1" }, name: [{ family: "Before" }] });
  });
});
