// A destination "via bridge": the queue's messages go down the bridge's relay socket (the test
// plays the bridge), the bridge's outcome settles them; with the bridge offline they wait as
// bridge_offline and go out once it connects; a reprocess is sent again with a higher round;
// another org's bridge never receives them.
import { describe, expect, it } from "vitest";
import { TestBridgeSocket, registerBridge } from "../bridges/support";
import { eventually } from "../support/eventually";
import { createTenant, type Tenant } from "../support/tenants";

interface Transmit {
  type: "transmit";
  delivery_id: string;
  destination_id: string;
  round: number;
  address: string;
  body: string;
}

async function bridgeDestination(t: Tenant, bridgeId: string) {
  const res = await t.fetch("/api/v1/destinations", {
    method: "POST",
    json: { name: "LIS via bridge", target: { kind: "bridge", bridge_id: bridgeId, address: "mllp://10.1.2.3:2575" }, retry: { initial_delay_ms: 100, max_delay_ms: 300 } },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const messagesOf = async (t: Tenant, id: string) => ((await (await t.fetch(`/api/v1/destinations/${id}/messages`)).json()) as { messages: { id: string; state: string; reprocessed: number; last_result: { ok: boolean; ack_code?: string; failure?: { class: string } } | null }[] }).messages;

/** Answers every transmit (each delivery id once per reprocess round) with an AA outcome, as the bridge does after the receiver's ACK. */
function answerAll(socket: TestBridgeSocket): () => void {
  const answered = new Set<string>();
  const timer = setInterval(() => {
    for (const m of socket.messages<Transmit>("transmit")) {
      if (answered.has(`${m.delivery_id} ${m.round}`)) continue;
      answered.add(`${m.delivery_id} ${m.round}`);
      socket.send({ type: "outcome", delivery_id: m.delivery_id, result: { ok: true, ack_code: "AA", response: "MSH|^~\\&|LIS\rMSA|AA|1" } });
    }
  }, 20);
  return () => clearInterval(timer);
}

describe("destinations via a bridge", () => {
  it("held as bridge_offline while the bridge is away, delivered through it once it connects, in order", async () => {
    const t = await createTenant();
    const bridge = await registerBridge(t);
    const d = await bridgeDestination(t, bridge.id);
    const res = await t.fetch(`/api/v1/destinations/${d}/messages`, { method: "POST", json: { messages: [{ id: "b1", body: "MSH|1" }, { id: "b2", body: "MSH|2" }] } });
    expect(res.status).toBe(202);
    const waiting = await eventually(() => messagesOf(t, d), (ms) => ms.some((m) => m.last_result?.failure?.class === "bridge_offline"));
    expect(waiting.every((m) => m.state === "queued")).toBe(true);

    const socket = await TestBridgeSocket.open(bridge.credential);
    const stop = answerAll(socket);
    try {
      await t.fetch(`/api/v1/destinations/${d}/messages/retry`, { method: "POST", json: {} });
      const done = await eventually(() => messagesOf(t, d), (ms) => ms.every((m) => m.state === "delivered"));
      expect(done.map((m) => m.state)).toEqual(["delivered", "delivered"]);
      const transmits = socket.messages<Transmit>("transmit");
      expect([...new Set(transmits.map((m) => m.delivery_id))]).toEqual(["b1", "b2"]);
      expect(transmits[0]).toMatchObject({ destination_id: d, round: 0, address: "mllp://10.1.2.3:2575", body: "MSH|1" });
      // The operator reprocesses b1: the transmit carries round 1, so the bridge, which holds b1 as delivered, sends it again.
      expect((await t.fetch(`/api/v1/destinations/${d}/messages/reprocess`, { method: "POST", json: { message_ids: ["b1"] } })).status).toBe(200);
      await eventually(() => messagesOf(t, d), (ms) => ms.find((m) => m.id === "b1")?.state === "delivered" && ms.find((m) => m.id === "b1")?.reprocessed === 1);
      expect(socket.messages<Transmit>("transmit").filter((m) => m.delivery_id === "b1").map((m) => m.round)).toEqual([0, 1]);
    } finally {
      stop();
      socket.close();
    }
  });

  it("another organization's bridge, or none, is refused at save; a bridge deleted later holds its messages", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const bBridge = await registerBridge(b);
    const bSocket = await TestBridgeSocket.open(bBridge.credential);
    try {
      for (const bridgeId of [bBridge.id, "no-such-bridge"]) {
        const res = await a.fetch("/api/v1/destinations", { method: "POST", json: { name: `via ${bridgeId}`, target: { kind: "bridge", bridge_id: bridgeId, address: "mllp://10.1.2.3:2575" } } });
        expect(res.status).toBe(422);
        expect(await res.json()).toMatchObject({ error: { code: "BRIDGE_NOT_FOUND", details: [{ path: "target.bridge_id" }] } });
      }
      const own = await registerBridge(a, "A's bridge");
      const d = await bridgeDestination(a, own.id);
      const moved = await a.fetch(`/api/v1/destinations/${d}`, { method: "PATCH", json: { target: { kind: "bridge", bridge_id: bBridge.id, address: "mllp://10.1.2.3:2575" } } });
      expect(moved.status).toBe(422);
      expect((await a.fetch(`/api/v1/bridges/${own.id}`, { method: "DELETE" })).status).toBe(204);
      // The bridge is gone: the transport holds the message as a configuration failure, never sent anywhere.
      await a.fetch(`/api/v1/destinations/${d}/messages`, { method: "POST", json: { messages: [{ id: "secret", body: "MSH|A" }] } });
      const held = await eventually(() => messagesOf(a, d), (ms) => ms[0]?.last_result?.failure !== undefined);
      expect(held[0]).toMatchObject({ state: "queued", last_result: { failure: { class: "configuration" } } });
      await new Promise((r) => setTimeout(r, 300));
      expect(bSocket.messages("transmit")).toEqual([]);
    } finally {
      bSocket.close();
    }
  });
});
