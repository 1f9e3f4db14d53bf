// /api/v1/bridges and the relay: registration with a credential shown once, rotation, deletion,
// the credential and API keys each refused in the other's place, live status through a real
// WebSocket, a transmit round trip with the test as the bridge, offline and mid-delivery
// disconnects, and tenancy (another org's bridge is neither visible nor reachable).
import { describe, expect, it } from "vitest";
import { bridgeTransport } from "../../src/features/bridges";
import { auditsDelivered } from "../support/queues";
import { call, createTenant } from "../support/tenants";
import { bridgeDelivery, connectRequest, registerBridge, TestBridgeSocket } from "./support";

interface BridgeBody {
  id: string;
  name: string;
  description: string | null;
  credential?: string;
  credential_prefix: string;
  status: "online" | "offline";
  connected_since: string | null;
  last_seen_at: string | null;
  version: string | null;
  host: string | null;
}
const MLLP_ACK = "MSH|^~\\&|LIS|LAB|CDIS|HOSP|20260101120000||ACK^R01|A1|P|2.5\rMSA|AA|MSG1";

describe("bridge registration", () => {
  it("registers a bridge with its credential shown once, lists and gets it without the credential, rotates and deletes it", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/v1/bridges", { method: "POST", json: { name: "Ward 3", description: "LIS feed" } });
    expect(res.status).toBe(201);
    const created = (await res.json()) as BridgeBody;
    expect(created).toMatchObject({ name: "Ward 3", description: "LIS feed", status: "offline", last_seen_at: null, connected_since: null });
    expect(created.credential).toMatch(/^cdisb_[A-Za-z0-9_-]+\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    expect(created.credential?.startsWith(created.credential_prefix)).toBe(true);

    const got = (await (await t.fetch(`/api/v1/bridges/${created.id}`)).json()) as BridgeBody;
    expect(got.credential).toBeUndefined();
    expect(got).toMatchObject({ id: created.id, status: "offline" });
    await registerBridge(t, "Second");
    const page = (await (await t.fetch("/api/v1/bridges?limit=1")).json()) as { bridges: BridgeBody[]; total_count: number };
    expect(page.total_count).toBe(2);
    expect(page.bridges).toHaveLength(1);
    expect(page.bridges[0]?.credential).toBeUndefined();

    // Rotation: the old credential stops working, the new one connects.
    const rotated = (await (await t.fetch(`/api/v1/bridges/${created.id}/rotate-credential`, { method: "POST" })).json()) as BridgeBody;
    expect(rotated.credential).toBeDefined();
    expect(rotated.credential).not.toBe(created.credential);
    expect((await connectRequest(created.credential)).status).toBe(401);
    const socket = await TestBridgeSocket.open(rotated.credential as string);

    // Deletion closes the connection and the credential stops working.
    expect((await t.fetch(`/api/v1/bridges/${created.id}`, { method: "DELETE" })).status).toBe(204);
    await socket.until(() => socket.closed, "close on delete");
    expect(socket.closed?.code).toBe(4001);
    expect((await t.fetch(`/api/v1/bridges/${created.id}`)).status).toBe(404);
    expect((await t.fetch(`/api/v1/bridges/${created.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await connectRequest(rotated.credential)).status).toBe(401);

    await auditsDelivered();
    for (const [action, id] of [["bridge.create", created.id], ["bridge.rotate_credential", created.id], ["bridge.delete", created.id]] as const) {
      const events = ((await (await t.fetch(`/api/audit?action=${action}`)).json()) as { audit_events: { entity: { what?: { identifier: { value: string } } }[] }[] }).audit_events;
      expect(events.some((e) => e.entity[0]?.what?.identifier.value === id), action).toBe(true);
    }
  });

  it("refuses bad input and non-admin writes", async () => {
    const t = await createTenant();
    expect((await t.fetch("/api/v1/bridges", { method: "POST", json: { name: "" } })).status).toBe(400);
    expect((await t.fetch("/api/v1/bridges", { method: "POST", json: { name: "x", extra: 1 } })).status).toBe(400);
    expect((await t.fetch("/api/v1/bridges/not-a-bridge")).status).toBe(404);
    const clinician = await createTenant({ role: "clinician" });
    expect((await clinician.fetch("/api/v1/bridges", { method: "POST", json: { name: "x" } })).status).toBe(403);
    expect((await clinician.fetch("/api/v1/bridges")).status).toBe(200);
  });
});

describe("bridge credentials", () => {
  it("refuses an API key on the connect route and the bridge credential everywhere else", async () => {
    const t = await createTenant();
    const bridge = await registerBridge(t);
    const withKey = await connectRequest(t.key);
    expect(withKey.status).toBe(401);
    expect(((await withKey.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    expect((await connectRequest(undefined)).status).toBe(401);
    expect((await connectRequest(`${bridge.credential.slice(0, -4)}AAAA`)).status).toBe(401);
    // Without the upgrade, a valid credential is told to upgrade.
    expect((await connectRequest(bridge.credential, false)).status).toBe(426);
    for (const path of ["/api/v1/bridges", `/api/v1/bridges/${bridge.id}`, "/api/connectors", `/fhir/r4/${t.orgId}/Patient`]) {
      const res = await call(path, { headers: { authorization: `Bearer ${bridge.credential}`, "x-organization-id": t.orgId } });
      expect(res.status, path).toBe(401);
    }
  });
});

describe("bridge relay", () => {
  it("shows the bridge online with its hello, last seen from its pings, offline after it goes", async () => {
    const t = await createTenant();
    const bridge = await registerBridge(t);
    const socket = await TestBridgeSocket.open(bridge.credential);
    socket.send({ type: "hello", version: "1.2.3", host: "lab-gw-01" });
    socket.send("ping");
    await socket.until(() => socket.received.includes("pong"), "pong");
    const online = (await (await t.fetch(`/api/v1/bridges/${bridge.id}`)).json()) as BridgeBody;
    expect(online).toMatchObject({ status: "online", version: "1.2.3", host: "lab-gw-01" });
    expect(online.connected_since).not.toBeNull();
    expect(online.last_seen_at).not.toBeNull();
    expect(Date.parse(online.last_seen_at as string)).toBeGreaterThanOrEqual(Date.parse(online.connected_since as string));

    socket.close();
    let after: BridgeBody | undefined;
    for (let i = 0; i < 50; i++) {
      after = (await (await t.fetch(`/api/v1/bridges/${bridge.id}`)).json()) as BridgeBody;
      if (after.status === "offline") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(after).toMatchObject({ status: "offline", connected_since: null, version: "1.2.3", host: "lab-gw-01" });
    expect(Date.parse(after?.last_seen_at as string)).toBeGreaterThanOrEqual(Date.parse(online.last_seen_at as string));
  });

  it("relays a transmit to the bridge and answers the outcome it reports", async () => {
    const t = await createTenant();
    const bridge = await registerBridge(t);
    const socket = await TestBridgeSocket.open(bridge.credential);
    const delivery = bridgeDelivery(t.orgId, bridge.id, "mllp://10.1.2.3:2575", "MSH|^~\\&|CDIS|HOSP|LIS|LAB|20260101120000||ORU^R01|MSG1|P|2.5");
    const answered = bridgeTransport.deliver(t.ctx, delivery);
    const [transmit] = await socket.until(() => {
      const list = socket.messages<Record<string, unknown>>("transmit");
      return list.length > 0 ? list : undefined;
    }, "transmit");
    expect(transmit).toEqual({
      type: "transmit",
      delivery_id: delivery.message.id,
      destination_id: delivery.destination.id,
      round: 0,
      address: "mllp://10.1.2.3:2575",
      body: delivery.message.body,
      content_type: "x-application/hl7-v2+er7",
      headers: { "x-site": "ward-3" },
      method: "POST",
      path: null,
      timeout_ms: 5_000,
    });
    socket.send({ type: "outcome", delivery_id: delivery.message.id, result: { ok: true, ack_code: "AA", response: MLLP_ACK } });
    expect(await answered).toEqual({ ok: true, ack_code: "AA", response: MLLP_ACK });
    // The outcome is acknowledged, so the bridge can forget it.
    await socket.until(() => socket.messages<{ delivery_id: string }>("ack").find((a) => a.delivery_id === delivery.message.id), "ack");
    socket.close();
  });

  it("answers bridge_offline without a connection and when the connection ends mid-delivery; timeout without an outcome", async () => {
    const t = await createTenant();
    const bridge = await registerBridge(t);
    const never = await bridgeTransport.deliver(t.ctx, bridgeDelivery(t.orgId, bridge.id, "mllp://10.0.0.5:2575", "MSH|x"));
    expect(never).toMatchObject({ ok: false, failure: { class: "bridge_offline" } });

    const socket = await TestBridgeSocket.open(bridge.credential);
    const midway = bridgeTransport.deliver(t.ctx, bridgeDelivery(t.orgId, bridge.id, "mllp://10.0.0.5:2575", "MSH|y"));
    await socket.until(() => socket.messages("transmit").length === 1, "transmit");
    socket.close(1001);
    expect(await midway).toMatchObject({ ok: false, failure: { class: "bridge_offline" } });

    // A second connection replaces the first: the first is closed with 4000.
    const first = await TestBridgeSocket.open(bridge.credential);
    const second = await TestBridgeSocket.open(bridge.credential);
    await first.until(() => first.closed, "first closed");
    expect(first.closed?.code).toBe(4000);
    const slow = await bridgeTransport.deliver(t.ctx, bridgeDelivery(t.orgId, bridge.id, "http://10.0.0.6/in", "{}", { timeout_ms: 100 }));
    expect(slow).toMatchObject({ ok: false, failure: { class: "timeout" } });
    expect(second.messages("transmit")).toHaveLength(1);
    expect(first.messages("transmit")).toHaveLength(0);
    second.close();

    // Not a bridge address, or a bridge that is gone: configuration.
    expect(await bridgeTransport.deliver(t.ctx, bridgeDelivery(t.orgId, bridge.id, "ftp://10.0.0.5/x", "x"))).toMatchObject({ ok: false, failure: { class: "configuration" } });
    expect(await bridgeTransport.deliver(t.ctx, bridgeDelivery(t.orgId, crypto.randomUUID(), "mllp://10.0.0.5:2575", "x"))).toMatchObject({ ok: false, failure: { class: "configuration" } });
  }, 30_000);

  it("closes a socket that speaks anything but the protocol", async () => {
    const t = await createTenant();
    const bridge = await registerBridge(t);
    const socket = await TestBridgeSocket.open(bridge.credential);
    socket.send("not json");
    await socket.until(() => socket.closed, "closed");
    expect(socket.closed?.code).toBe(4002);
  });
});

describe("bridge tenancy", () => {
  it("never shows org B's bridge to org A nor sends A's messages to B's bridge", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const bBridge = await registerBridge(b, "B's bridge");
    const bSocket = await TestBridgeSocket.open(bBridge.credential);
    expect((await a.fetch(`/api/v1/bridges/${bBridge.id}`)).status).toBe(404);
    expect((await a.fetch(`/api/v1/bridges/${bBridge.id}/rotate-credential`, { method: "POST" })).status).toBe(404);
    expect((await a.fetch(`/api/v1/bridges/${bBridge.id}`, { method: "DELETE" })).status).toBe(404);
    expect(((await (await a.fetch("/api/v1/bridges")).json()) as { total_count: number }).total_count).toBe(0);

    // A destination of org A naming B's bridge is a configuration error; B's socket gets nothing.
    const fromA = await bridgeTransport.deliver(a.ctx, bridgeDelivery(a.orgId, bBridge.id, "mllp://10.0.0.7:2575", "MSH|secret-of-A"));
    expect(fromA).toMatchObject({ ok: false, failure: { class: "configuration" } });
    // A destination claiming org B handed to org A's context is refused too.
    const forged = await bridgeTransport.deliver(a.ctx, bridgeDelivery(b.orgId, bBridge.id, "mllp://10.0.0.7:2575", "MSH|secret-of-A"));
    expect(forged).toMatchObject({ ok: false, failure: { class: "configuration" } });
    // Even with a bridge of its own under the same id space, A's transmit goes to A's relay only.
    const aBridge = await registerBridge(a, "A's bridge");
    const aSocket = await TestBridgeSocket.open(aBridge.credential);
    const own = bridgeTransport.deliver(a.ctx, bridgeDelivery(a.orgId, aBridge.id, "mllp://10.0.0.7:2575", "MSH|for-A"));
    const [transmit] = await aSocket.until(() => {
      const list = aSocket.messages<{ delivery_id: string }>("transmit");
      return list.length > 0 ? list : undefined;
    }, "A's transmit");
    aSocket.send({ type: "outcome", delivery_id: transmit?.delivery_id, result: { ok: true, ack_code: "AA" } });
    expect(await own).toMatchObject({ ok: true });
    expect(bSocket.messages("transmit")).toHaveLength(0);
    expect(bSocket.received.some((m) => m.includes("secret-of-A") || m.includes("for-A"))).toBe(false);
    aSocket.close();
    bSocket.close();
  });
});
