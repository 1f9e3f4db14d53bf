// Interoperability: the npm FHIR client fhir-kit-client drives the Worker (its requests are
// routed to the Worker's fetch handler) through CRUD, search with paging, history and a
// transaction.
import { Client } from "fhir-kit-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { type Tenant, createTenant } from "../support/tenants";
import { routeFetchToWorker } from "../support/worker-fetch";

let t: Tenant;
let client: Client;
let restoreFetch: () => void;

beforeAll(async () => {
  t = await createTenant();
  // fhir-kit-client calls the global fetch; send its requests to the Worker under test.
  restoreFetch = routeFetchToWorker();
  client = new Client({ baseUrl: `http://localhost/fhir/r4/${t.orgId}`, customHeaders: { Authorization: `Bearer ${t.key}`, "X-Organization-ID": t.orgId } });
});

afterAll(() => restoreFetch());

describe("fhir-kit-client", () => {
  it("reads the CapabilityStatement", async () => {
    const cs = (await client.capabilityStatement()) as Resource;
    expect(cs.resourceType).toBe("CapabilityStatement");
  });

  it("creates, reads, updates, patches, deletes", async () => {
    const created = (await client.create({ resourceType: "Patient", body: { resourceType: "Patient", name: [{ family: "Kit" }] } })) as Resource;
    expect(created.id).toBeDefined();
    const read = (await client.read({ resourceType: "Patient", id: created.id! })) as Resource;
    expect(read).toMatchObject({ name: [{ family: "Kit" }] });
    const updated = (await client.update({ resourceType: "Patient", id: created.id!, body: { ...read, gender: "female" } })) as Resource;
    expect(updated.meta?.versionId).toBe("2");
    const patched = (await client.patch({ resourceType: "Patient", id: created.id!, jsonPatch: [{ op: "add", path: "/birthDate", value: "2000-01-01" }] })) as Resource;
    expect(patched).toMatchObject({ gender: "female", birthDate: "2000-01-01", meta: { versionId: "3" } });
    const v1 = (await client.vread({ resourceType: "Patient", id: created.id!, version: "1" })) as Resource;
    expect(v1.gender).toBeUndefined();
    const history = (await client.history({ resourceType: "Patient", id: created.id! })) as Bundle;
    expect(history.entry).toHaveLength(3);
    await client.delete({ resourceType: "Patient", id: created.id! });
    await expect(client.read({ resourceType: "Patient", id: created.id! })).rejects.toMatchObject({ response: { status: 410 } });
  });

  it("searches and follows next/previous pages", async () => {
    for (let i = 0; i < 5; i++) await client.create({ resourceType: "Observation", body: { resourceType: "Observation", status: "final", code: { text: "kit" }, valueQuantity: { value: i } } });
    const first = (await client.search({ resourceType: "Observation", searchParams: { "code:text": "kit", _count: 2, _sort: "value-quantity" } })) as Bundle;
    expect(first.entry).toHaveLength(2);
    const second = (await client.nextPage({ bundle: first as never })) as Bundle;
    const third = (await client.nextPage({ bundle: second as never })) as Bundle;
    const values = [first, second, third].flatMap((b) => b.entry!.map((e) => (e.resource as unknown as { valueQuantity: { value: number } }).valueQuantity.value));
    expect(values).toEqual([0, 1, 2, 3, 4]);
    const back = (await client.prevPage({ bundle: third as never })) as Bundle;
    expect(back.entry!.map((e) => (e.resource as unknown as { valueQuantity: { value: number } }).valueQuantity.value)).toEqual([2, 3]);
  });

  it("posts a transaction", async () => {
    const res = (await client.transaction({
      body: {
        resourceType: "Bundle",
        type: "transaction",
        entry: [
          { fullUrl: "urn:uuid:9d1c2b3a-0000-4000-8000-000000000001", resource: { resourceType: "Patient", name: [{ family: "Tx" }] }, request: { method: "POST", url: "Patient" } },
          { resource: { resourceType: "Condition", subject: { reference: "urn:uuid:9d1c2b3a-0000-4000-8000-000000000001" } }, request: { method: "POST", url: "Condition" } },
        ],
      },
    })) as Bundle;
    expect(res.type).toBe("transaction-response");
    const patientId = res.entry![0]!.resource!.id;
    expect(res.entry![1]!.resource).toMatchObject({ subject: { reference: `Patient/${patientId}` } });
  });
});
