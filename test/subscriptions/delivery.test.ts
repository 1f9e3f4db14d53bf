// FHIR Subscriptions delivered for real: rest-hook notifications through each Subscription's
// managed destination to scripted loopback HTTP receivers (test/setup/outbound-peers.ts), and the
// websocket channel through a real WebSocket opened on the Worker. Handshakes, empty and full
// payloads, channel headers, a Backport topic with a heartbeat, status requested → active → error
// (a 500 streak, a 400 dead letter) and back, $events replay, and tenant isolation over both channels.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { TOPIC_BASE, sendHeartbeats } from "../../src/features/subscriptions";
import { IG } from "../../src/features/subscriptions/ig";
import { SUBSCRIPTION_OUTBOUND } from "../../src/main/fhir-changes";
import { TestBridgeSocket } from "../bridges/support";
import { eventually } from "../support/eventually";
import { type Received, httpReceiver, receivedBy } from "../support/outbound-peers";
import { type Tenant, call, createTenant } from "../support/tenants";

const FHIR = { "content-type": "application/fhir+json" };
type Sub = Resource & { id: string; status: string; error?: string };
type Params = { parameter: { name: string; valueCode?: string; valueString?: string; valueCanonical?: string; valueUrl?: string; valueDateTime?: string }[] };

async function create<T = Sub>(t: Tenant, resource: Record<string, unknown>): Promise<T> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${resource.resourceType}`, { method: "POST", json: resource, headers: FHIR });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as T;
}

const read = async (t: Tenant, id: string) => (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${id}`)).json()) as Sub;
const statusBecomes = (t: Tenant, id: string, status: string) => eventually(() => read(t, id), (s) => s.status === status, 20_000);
const receives = (peer: string, n: number) => eventually(() => receivedBy(peer), (r) => r.length >= n, 20_000);

const heartRate = (subject = "Patient/p1", code = "8867-4") => ({ resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code }] }, subject: { reference: subject } });
const r4Subscription = (endpoint: string, channel: Record<string, unknown> = {}) => ({
  resourceType: "Subscription",
  status: "requested",
  reason: "test",
  criteria: "Observation?code=http://loinc.org|8867-4",
  channel: { type: "rest-hook", endpoint, header: ["Authorization: Bearer receiver-token", "X-Site: ward-3"], ...channel },
});

const statusParams = (b: Bundle) => (b.entry![0]!.resource as unknown as Params).parameter;
const typeOf = (b: Bundle) => statusParams(b).find((p) => p.name === "type")?.valueCode;
const bundleOf = (r: Received) => JSON.parse(r.body) as Bundle;

describe("rest-hook subscriptions over a loopback receiver", () => {
  it("R4 criteria, empty payload: a bodyless handshake then one bodyless POST per matching change, with the channel's headers; active after the handshake", async () => {
    const t = await createTenant();
    const peer = await httpReceiver();
    const sub = await create(t, r4Subscription(peer.url));
    const [handshake] = await receives(peer.id, 1);
    expect(handshake!.body).toBe("");
    expect(handshake!.headers).toMatchObject({ authorization: "Bearer receiver-token", "x-site": "ward-3" });
    await statusBecomes(t, sub.id, "active");
    await create(t, heartRate());
    await create(t, heartRate("Patient/p1", "1234-5")); // another code: no notification
    await create(t, heartRate("Patient/p2"));
    const got = await receives(peer.id, 3);
    expect(got.map((r) => r.body)).toEqual(["", "", ""]);
    expect(got.every((r) => r.headers.authorization === "Bearer receiver-token")).toBe(true);
    expect((await read(t, sub.id)).status).toBe("active");
  });

  it("R4 criteria, full payload: notification Bundles carrying the resource as application/fhir+json, replayed by $events", async () => {
    const t = await createTenant();
    const peer = await httpReceiver();
    const sub = await create(t, r4Subscription(peer.url, { payload: "application/fhir+json" }));
    const obs = await create<Resource & { id: string }>(t, heartRate());
    const got = await receives(peer.id, 2);
    expect(got[1]!.headers["content-type"]).toMatch(/^application\/fhir\+json/);
    const [hello, event] = got.map(bundleOf);
    expect([typeOf(hello!), typeOf(event!)]).toEqual(["handshake", "event-notification"]);
    expect(event!.type).toBe("history");
    expect(event!.entry![1]!.resource).toMatchObject({ resourceType: "Observation", id: obs.id });
    const notified = statusParams(event!).find((p) => p.name === "events-since-subscription-start")?.valueString;
    expect(notified).toBe("1");
    // The same event, replayed from the subscription's log.
    const replay = (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${sub.id}/$events?eventsSinceNumber=1&content=full-resource`)).json()) as Bundle;
    expect(typeOf(replay)).toBe("query-event");
    expect(replay.entry![1]!.resource).toMatchObject({ resourceType: "Observation", id: obs.id });
    const status = (await (await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${sub.id}/$status`)).json()) as Bundle;
    expect(statusParams(status).find((p) => p.name === "status")?.valueCode).toBe("active");
  });

  it("a Backport topic: the handshake Bundle names the topic, filtered id-only events, then a heartbeat", async () => {
    const t = await createTenant();
    const peer = await httpReceiver();
    const sub = await create(t, {
      resourceType: "Subscription",
      status: "requested",
      reason: "device readings",
      criteria: `${TOPIC_BASE}/device-reading`,
      _criteria: { extension: [{ url: IG.filterCriteria, valueString: "Observation?subject=Patient/p1" }] },
      channel: { type: "rest-hook", endpoint: peer.url, payload: "application/fhir+json", _payload: { extension: [{ url: IG.payloadContent, valueCode: "id-only" }] }, extension: [{ url: IG.heartbeatPeriod, valueUnsignedInt: 60 }] },
    });
    await receives(peer.id, 1);
    await statusBecomes(t, sub.id, "active");
    await create(t, { ...heartRate(), device: { reference: "Device/d1" } });
    await create(t, heartRate()); // no device: not a device reading
    await create(t, { ...heartRate("Patient/p2"), device: { reference: "Device/d1" } }); // filtered out
    await receives(peer.id, 2);
    expect(await sendHeartbeats(t.ctx, [sub.id], SUBSCRIPTION_OUTBOUND, new Date(Date.now() + 61_000))).toBe(1);
    const bodies = (await receives(peer.id, 3)).map(bundleOf);
    expect(bodies.map(typeOf)).toEqual(["handshake", "event-notification", "heartbeat"]);
    expect(statusParams(bodies[0]!).find((p) => p.name === "topic")?.valueCanonical).toBe(`${TOPIC_BASE}/device-reading`);
    expect(bodies[1]!.entry![1]!.resource).toBeUndefined();
    expect(bodies[1]!.entry![1]!.fullUrl).toMatch(/\/Observation\//);
    expect(statusParams(bodies[2]!).find((p) => p.name === "status")?.valueCode).toBe("active");
  });

  it("turns error after three 500s in a row, with the failure as `error`, and active again once a notification is delivered", async () => {
    const t = await createTenant();
    const peer = await httpReceiver([{ status: 500, times: 3 }]);
    const sub = await create(t, r4Subscription(peer.url));
    const errored = await statusBecomes(t, sub.id, "error");
    expect(errored.error).toMatch(/^server_error: .*500/);
    // The queue keeps retrying the handshake; the receiver recovers on the fourth attempt.
    const healed = await statusBecomes(t, sub.id, "active");
    expect(healed.error).toBeUndefined();
    expect((await receivedBy(peer.id)).map((r) => r.answered)).toEqual(["500", "500", "500", "200"]);
  });

  it("turns error at once when the receiver refuses with a 400 (dead-lettered)", async () => {
    const t = await createTenant();
    const peer = await httpReceiver([{ status: 400 }]);
    const sub = await create(t, r4Subscription(peer.url));
    const errored = await statusBecomes(t, sub.id, "error");
    expect(errored.error).toMatch(/^client_error: .*400/);
    expect(await receivedBy(peer.id)).toHaveLength(1);
  });

  it("org B's subscription never receives org A's changes, nor reads A's $status or $events", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const peerA = await httpReceiver();
    const peerB = await httpReceiver();
    const subA = await create(a, r4Subscription(peerA.url, { payload: "application/fhir+json" }));
    await create(b, r4Subscription(peerB.url, { payload: "application/fhir+json" }));
    await receives(peerB.id, 1);
    const obs = await create<Resource & { id: string }>(a, heartRate());
    const gotA = await receives(peerA.id, 2);
    expect(bundleOf(gotA[1]!).entry![1]!.resource?.id).toBe(obs.id);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await receivedBy(peerB.id)).map((r) => typeOf(bundleOf(r)))).toEqual(["handshake"]);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Subscription/${subA.id}/$status`)).status).toBe(404);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Subscription/${subA.id}/$events`)).status).toBe(404);
  });
});

async function bindingToken(t: Tenant, id: string): Promise<{ token: string; url: string; expiration: string; subscription: string }> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${id}/$get-ws-binding-token`);
  expect(res.status, await res.clone().text()).toBe(200);
  const p = ((await res.json()) as Params).parameter;
  const value = (name: string) => p.find((x) => x.name === name);
  return { token: value("token")!.valueString!, url: value("websocket-url")!.valueUrl!, expiration: value("expiration")!.valueDateTime!, subscription: value("subscription")!.valueString! };
}

async function openSocket(t: Tenant): Promise<TestBridgeSocket> {
  const res = await call(`/fhir/r4/${t.orgId}/$subscription-ws`, { headers: { upgrade: "websocket" } });
  if (res.status !== 101 || !res.webSocket) throw new Error(`socket: ${res.status} ${await res.text()}`);
  return new TestBridgeSocket(res.webSocket);
}

const wsSubscription = (extra: Record<string, unknown> = {}) => ({
  resourceType: "Subscription",
  status: "requested",
  reason: "websocket",
  criteria: `${TOPIC_BASE}/resource-created`,
  _criteria: { extension: [{ url: IG.filterCriteria, valueString: "Observation?subject=Patient/p1" }] },
  channel: { type: "websocket", payload: "application/fhir+json", _payload: { extension: [{ url: IG.payloadContent, valueCode: "full-resource" }] }, extension: [{ url: IG.heartbeatPeriod, valueUnsignedInt: 60 }] },
  ...extra,
});

const bundles = (s: TestBridgeSocket) => s.received.filter((m) => m.startsWith("{")).map((m) => JSON.parse(m) as Bundle & { resourceType: string });

describe("websocket subscriptions", () => {
  it("bind-with-token gets the handshake and makes the subscription active; notifications and heartbeats arrive as Bundles", async () => {
    const t = await createTenant();
    const sub = await create(t, wsSubscription());
    const binding = await bindingToken(t, sub.id);
    expect(binding.subscription).toBe(sub.id);
    expect(binding.url).toMatch(new RegExp(`^ws://localhost/fhir/r4/${t.orgId}/\\$subscription-ws$`));
    expect(Date.parse(binding.expiration)).toBeGreaterThan(Date.now());
    const socket = await openSocket(t);
    socket.send(`bind-with-token ${binding.token}`);
    const [hello] = await socket.until(() => bundles(socket).length >= 1 && bundles(socket), "handshake");
    expect(typeOf(hello!)).toBe("handshake");
    await statusBecomes(t, sub.id, "active");
    const obs = await create<Resource & { id: string }>(t, heartRate());
    await create(t, heartRate("Patient/p2")); // filtered out
    const got = await socket.until(() => bundles(socket).length >= 2 && bundles(socket), "event");
    expect(typeOf(got[1]!)).toBe("event-notification");
    expect(got[1]!.entry![1]!.resource).toMatchObject({ resourceType: "Observation", id: obs.id });
    expect(await sendHeartbeats(t.ctx, [sub.id], SUBSCRIPTION_OUTBOUND, new Date(Date.now() + 61_000))).toBe(1);
    const beat = await socket.until(() => bundles(socket).length >= 3 && bundles(socket), "heartbeat");
    expect(typeOf(beat[2]!)).toBe("heartbeat");
    socket.send("ping");
    await socket.until(() => socket.received.includes("pong"), "pong");
    expect(bundles(socket)).toHaveLength(3);
    socket.close();
  });

  it("an R4 criteria websocket without payload gets `bound <id>` and `ping <id>` per change (HAPI's)", async () => {
    const t = await createTenant();
    const sub = await create(t, { resourceType: "Subscription", status: "requested", reason: "hapi", criteria: "Observation?code=http://loinc.org|8867-4", channel: { type: "websocket" } });
    const socket = await openSocket(t);
    socket.send(`bind-with-token ${(await bindingToken(t, sub.id)).token}`);
    await socket.until(() => socket.received.includes(`bound ${sub.id}`), "bound");
    await create(t, heartRate());
    await socket.until(() => socket.received.includes(`ping ${sub.id}`), "ping");
    socket.close();
  });

  it("refuses a token it did not issue, a rest-hook subscription's token, and a closed channel until bound", async () => {
    const t = await createTenant();
    const socket = await openSocket(t);
    socket.send("bind-with-token not-a-token");
    const [refused] = await socket.until(() => bundles(socket).length >= 1 && bundles(socket), "refusal");
    expect(refused!.resourceType).toBe("OperationOutcome");
    const peer = await httpReceiver();
    const rest = await create(t, r4Subscription(peer.url));
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Subscription/${rest.id}/$get-ws-binding-token`)).status).toBe(400);
    expect((await call(`/fhir/r4/${t.orgId}/$subscription-ws`)).status).toBe(426);
    socket.close();
  });

  it("org B's socket can never bind org A's subscription, nor get its token, nor hear its notifications", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const subA = await create(a, wsSubscription());
    const tokenA = (await bindingToken(a, subA.id)).token;
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Subscription/${subA.id}/$get-ws-binding-token`)).status).toBe(404);
    const socketB = await openSocket(b);
    socketB.send(`bind-with-token ${tokenA}`);
    const [refused] = await socketB.until(() => bundles(socketB).length >= 1 && bundles(socketB), "refusal");
    expect(refused!.resourceType).toBe("OperationOutcome");
    const socketA = await openSocket(a);
    socketA.send(`bind-with-token ${tokenA}`);
    await socketA.until(() => bundles(socketA).length >= 1, "A's handshake");
    await create(a, heartRate());
    await socketA.until(() => bundles(socketA).length >= 2, "A's event");
    await new Promise((r) => setTimeout(r, 500));
    expect(bundles(socketB).map((m) => m.resourceType)).toEqual(["OperationOutcome"]);
    socketA.close();
    socketB.close();
  });
});
