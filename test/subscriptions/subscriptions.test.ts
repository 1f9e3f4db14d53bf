// FHIR Subscriptions in the Worker: the store's change hook (every committed write, no read),
// Subscriptions refused with a 422 when they cannot be served, the topics in the
// CapabilityStatement and $topic-list, and the subscriptions' bookkeeping over a recorder of what
// they hand the destination queues (saveManagedDestination, enqueue: the core's port): handshake,
// numbered events, $status and $events, status requested → active → error, heartbeats, and
// tenant isolation. Delivery over HTTP and websockets is the destination queues' (not yet wired).
import { describe, expect, it } from "vitest";
import type { FhirChange } from "../../src/features/fhir";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { TOPIC_BASE, sendHeartbeats, subscriptionAttemptObserver, subscriptionsOnChanges } from "../../src/features/subscriptions";
import { IG } from "../../src/features/subscriptions/ig";
import type { NotificationMessage, SubscriptionOutbound } from "../../src/features/subscriptions/outbound";
import { type Tenant, createTenant } from "../support/tenants";

const principal = (t: Tenant) => ({ orgId: t.orgId, keyId: "test", keyName: "test", role: "admin" as const, scopes: [] });

function recorder() {
  const destinations = new Map<string, { id: string; spec: Parameters<SubscriptionOutbound["saveManagedDestination"]>[2] }>();
  const queued = new Map<string, NotificationMessage[]>();
  const outbound: SubscriptionOutbound = {
    saveManagedDestination: async (ctx, owner, spec) => {
      const id = `dest-${ctx.orgId}-${owner.id}`;
      destinations.set(owner.id, { id, spec });
      return { id };
    },
    removeManagedDestination: async (_ctx, owner) => {
      destinations.delete(owner.id);
    },
    enqueue: async (_ctx, destinationId, messages) => {
      queued.set(destinationId, [...(queued.get(destinationId) ?? []), ...messages]);
      return { ids: messages.map((m) => m.id) };
    },
  };
  const messagesOf = (t: Tenant, subscriptionId: string) => queued.get(`dest-${t.orgId}-${subscriptionId}`) ?? [];
  return { outbound, destinations, messagesOf };
}

/** The org's store as the composition root will build it, with subscriptions listening through `outbound`. */
const listening = (t: Tenant, outbound: SubscriptionOutbound) => t.ctx.fhir(principal(t), { onChange: (changes) => subscriptionsOnChanges(t.ctx, changes, outbound) });

const heartRate = (subject = "Patient/p1", code = "8867-4") => ({ resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code }] }, subject: { reference: subject } });
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
    const ok = await t.fetch(`/fhir/r4/${t.orgId}/Subscription`, { method: "POST", json: r4Subscription("Observation?code=http://loinc.org|8867-4"), headers: { "content-type": "application/fhir+json" } });
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

describe("subscriptions' bookkeeping", () => {
  it("handshakes a requested rest-hook, numbers matching events, answers $status and $events, and follows attempts to active and error", async () => {
    const t = await createTenant();
    const { outbound, destinations, messagesOf } = recorder();
    const store = listening(t, outbound);
    const sub = (await store.create(r4Subscription("Observation?code=http://loinc.org|8867-4"))).resource as Resource & { id: string };
    expect(destinations.get(sub.id)?.spec).toMatchObject({ target: { kind: "url", url: "https://receiver.example/hook" }, http: { method: "POST", headers: { Authorization: "Bearer receiver-token" } }, ordering: "fifo", state: "active" });
    const handshake = messagesOf(t, sub.id);
    expect(handshake.map((m) => m.id)).toEqual([`${sub.id}:handshake:1`]);
    expect(handshake[0]!.body).toBe(""); // R4 without channel.payload: an empty notification

    await store.create(heartRate());
    await store.create(heartRate("Patient/p1", "1234-5")); // another code: no event
    const obs = (await store.create(heartRate("Patient/p2"))).resource as Resource & { id: string };
    expect(messagesOf(t, sub.id).map((m) => m.id)).toEqual([`${sub.id}:handshake:1`, `${sub.id}:1`, `${sub.id}:2`]);

    const status = (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${sub.id}/$status`)).json()) as Bundle;
    const params = status.entry![0]!.resource as unknown as { parameter: { name: string; valueCode?: string; valueString?: string }[] };
    expect(params.parameter.find((p) => p.name === "type")?.valueCode).toBe("query-status");
    expect(params.parameter.find((p) => p.name === "events-since-subscription-start")?.valueString).toBe("2");

    const events = (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${sub.id}/$events?eventsSinceNumber=2&content=full-resource`)).json()) as Bundle;
    expect(events.type).toBe("history");
    expect(events.entry).toHaveLength(2);
    expect(events.entry![1]!.resource?.id).toBe(obs.id);

    const observe = (next: "delivered" | "retry" | "dead", streak: number, status?: number) =>
      subscriptionAttemptObserver(t.ctx, { destination: { owner: { kind: "subscription", id: sub.id } }, attempt: { result: next === "delivered" ? { ok: true, status: 200 } : { ok: false, status, failure: { class: "server_error", message: `HTTP ${status}` } } }, next, failure_streak: streak });
    const current = async () => (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${sub.id}`)).json()) as { status: string; error?: string; meta: { versionId: string } };
    await observe("delivered", 0);
    expect((await current()).status).toBe("active");
    const before = messagesOf(t, sub.id).length;
    await observe("retry", 1, 500);
    await observe("retry", 2, 500);
    expect((await current()).status).toBe("active");
    await observe("retry", 3, 503);
    const errored = await current();
    expect(errored).toMatchObject({ status: "error", error: "server_error: HTTP 503" });
    // The service's own status writes notify nobody and queue no new handshake.
    expect(messagesOf(t, sub.id).length).toBe(before);
    await observe("delivered", 0);
    expect((await current()).status).toBe("active");
    expect((await current()).error).toBeUndefined();
  });

  it("sends a topic subscription a handshake Bundle, id-only events and heartbeats", async () => {
    const t = await createTenant();
    const { outbound, messagesOf } = recorder();
    const store = listening(t, outbound);
    const sub = (
      await store.create({
        resourceType: "Subscription",
        status: "requested",
        reason: "device readings",
        criteria: `${TOPIC_BASE}/device-reading`,
        _criteria: { extension: [{ url: IG.filterCriteria, valueString: "Observation?subject=Patient/p1" }] },
        channel: { type: "rest-hook", endpoint: "https://receiver.example/topic", payload: "application/fhir+json", _payload: { extension: [{ url: IG.payloadContent, valueCode: "id-only" }] }, extension: [{ url: IG.heartbeatPeriod, valueUnsignedInt: 60 }] },
      } as Resource)
    ).resource as Resource & { id: string };
    await store.create({ ...heartRate(), device: { reference: "Device/d1" } });
    await store.create(heartRate()); // no device: not a device reading
    await store.create({ ...heartRate("Patient/p2"), device: { reference: "Device/d1" } }); // filtered out
    const sent = await sendHeartbeats(t.ctx, [sub.id], outbound, new Date(Date.now() + 61_000));
    expect(sent).toBe(1);
    const bodies = messagesOf(t, sub.id).map((m) => JSON.parse(m.body) as Bundle);
    const typeOf = (b: Bundle) => (b.entry![0]!.resource as unknown as { parameter: { name: string; valueCode?: string }[] }).parameter.find((p) => p.name === "type")?.valueCode;
    expect(bodies.map(typeOf)).toEqual(["handshake", "event-notification", "heartbeat"]);
    expect(bodies[1]!.entry![1]!.resource).toBeUndefined();
    expect(bodies[1]!.entry![1]!.fullUrl).toMatch(/\/Observation\//);
    expect((bodies[0]!.entry![0]!.resource as unknown as { parameter: { name: string; valueCanonical?: string }[] }).parameter.find((p) => p.name === "topic")?.valueCanonical).toBe(`${TOPIC_BASE}/device-reading`);
  });

  it("org B's subscription never sees org A's changes, nor its $status", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { outbound, messagesOf } = recorder();
    const subA = (await listening(a, outbound).create(r4Subscription("Observation?code=8867-4", { payload: "application/fhir+json" }))).resource as Resource & { id: string };
    const subB = (await listening(b, outbound).create(r4Subscription("Observation?code=8867-4", { payload: "application/fhir+json" }))).resource as Resource & { id: string };
    await listening(a, outbound).create(heartRate());
    expect(messagesOf(a, subA.id).map((m) => m.label)).toEqual(["handshake", "event 1"]);
    expect(messagesOf(b, subB.id).map((m) => m.label)).toEqual(["handshake"]);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Subscription/${subA.id}/$status`)).status).toBe(404);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Subscription/${subA.id}/$events`)).status).toBe(404);
  });
});
