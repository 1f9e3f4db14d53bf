// FHIR Subscriptions in the Worker: the store's change hook (every committed write, no read),
// Subscriptions refused with a 422 when they cannot be served, and the topics in the
// CapabilityStatement and $topic-list. Delivery (rest-hook and websocket) is delivery.test.ts.
import { describe, expect, it } from "vitest";
import type { FhirChange } from "../../src/features/fhir";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { TOPIC_BASE } from "../../src/features/subscriptions";
import { IG } from "../../src/features/subscriptions/ig";
import { httpReceiver } from "../support/outbound-peers";
import { type Tenant, createTenant } from "../support/tenants";

const principal = (t: Tenant) => ({ orgId: t.orgId, keyId: "test", keyName: "test", role: "admin" as const, scopes: [] });

const r4Subscription = (criteria: string, extra: Record<string, unknown> = {}) => ({
  resourceType: "Subscription",
  status: "requested",
  reason: "test",
  criteria,
  channel: { type: "rest-hook", endpoint: "https://receiver.example/hook", header: ["Authorization: Bearer receiver-token"], ...extra },
});

describe("the FHIR change hook", () => {
  it("reports every committed create, update and delete, single or in a bundle, and nothing for reads", async () => {
    const t = await createTenant();
    const seen: FhirChange[] = [];
    const store = t.ctx.fhir(principal(t), { onChange: async (changes) => void seen.push(...changes) });
    const created = (await store.create({ resourceType: "Patient", name: [{ family: "One" }] })).resource as Resource & { id: string };
    await store.update({ ...created, name: [{ family: "Two" }] });
    await store.read("Patient", created.id);
    await store.search("Patient", "family=Two");
    await store.conditionalUpdate("family=Three", { resourceType: "Patient", name: [{ family: "Three" }] });
    await store.batch({ resourceType: "Bundle", type: "transaction", entry: [{ resource: { resourceType: "Patient", name: [{ family: "Tx" }] }, request: { method: "POST", url: "Patient" } }, { request: { method: "DELETE", url: `Patient/${created.id}` } }] });
    await store.batch({ resourceType: "Bundle", type: "batch", entry: [{ resource: { resourceType: "Patient", name: [{ family: "Batch" }] }, request: { method: "POST", url: "Patient" } }] });
    await store.delete("Patient", created.id); // already deleted: nothing stored, nothing told
    expect(seen.map((c) => [c.action, c.resourceType, c.versionId])).toEqual([
      ["create", "Patient", "1"],
      ["update", "Patient", "2"],
      ["create", "Patient", "1"],
      // A transaction's changes in its processing order (DELETE before POST).
      ["delete", "Patient", "3"],
      ["create", "Patient", "1"],
      ["create", "Patient", "1"],
    ]);
    expect((seen[1]!.previous as unknown as { name: { family: string }[] }).name[0]!.family).toBe("One");
    expect((seen[3]!.resource as unknown as { name: { family: string }[] }).name[0]!.family).toBe("Two");
  });

  it("never fails the write when the hook throws", async () => {
    const t = await createTenant();
    const store = t.ctx.fhir(principal(t), {
      onChange: async () => {
        throw new Error("listener down");
      },
    });
    const { resource } = await store.create({ resourceType: "Patient" });
    expect((await store.read("Patient", resource.id!)).id).toBe(resource.id);
  });
});

describe("Subscriptions the service cannot serve", () => {
  it("are refused with a 422 OperationOutcome and not stored", async () => {
    const t = await createTenant();
    for (const body of [r4Subscription("Observation?no-such-param=1"), r4Subscription(`${TOPIC_BASE}/no-such-topic`), r4Subscription("Observation?code=1", { type: "sms", endpoint: "tel:1" })]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/Subscription`, { method: "POST", json: body, headers: { "content-type": "application/fhir+json" } });
      expect(res.status).toBe(422);
      const outcome = (await res.json()) as { resourceType: string; issue: { diagnostics?: string }[] };
      expect(outcome.resourceType).toBe("OperationOutcome");
    }
    const tx = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [{ resource: r4Subscription("Observation?nonsense=1"), request: { method: "POST", url: "Subscription" } }] }, headers: { "content-type": "application/fhir+json" } });
    expect(tx.status).toBe(422);
    const list = (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription`)).json()) as Bundle;
    expect(list.entry ?? []).toHaveLength(0);
    const peer = await httpReceiver();
    const ok = await t.fetch(`/fhir/r4/${t.orgId}/Subscription`, { method: "POST", json: r4Subscription("Observation?code=http://loinc.org|8867-4", { endpoint: peer.url }), headers: { "content-type": "application/fhir+json" } });
    expect(ok.status).toBe(201);
  });
});

describe("topics", () => {
  it("are declared on the CapabilityStatement's Subscription entry and listed by $topic-list", async () => {
    const t = await createTenant();
    const cs = (await (await t.fetch(`/fhir/r4/${t.orgId}/metadata`)).json()) as { instantiates: string[]; rest: { resource: { type: string; extension?: { url: string; valueCanonical: string }[]; operation: { name: string }[] }[] }[] };
    const sub = cs.rest[0]!.resource.find((r) => r.type === "Subscription")!;
    const topics = (sub.extension ?? []).filter((e) => e.url === IG.topicCanonical).map((e) => e.valueCanonical);
    expect(topics).toEqual(expect.arrayContaining([`${TOPIC_BASE}/resource-created`, `${TOPIC_BASE}/encounter-start`, `${TOPIC_BASE}/encounter-end`, `${TOPIC_BASE}/device-reading`, `${TOPIC_BASE}/alert-raised`]));
    expect(sub.operation.map((o) => o.name)).toEqual(expect.arrayContaining(["status", "events", "topic-list"]));
    expect(cs.instantiates).toContain(IG.serverCapability);
    const list = (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription/$topic-list`)).json()) as { parameter: { name: string; valueCanonical: string }[] };
    expect(list.parameter.map((p) => p.valueCanonical).sort()).toEqual([...topics].sort());
  });
});
