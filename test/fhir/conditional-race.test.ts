// Conditional writes racing each other: identical If-None-Exist creates, conditional
// updates and transactions sent at once must leave exactly one resource.
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
