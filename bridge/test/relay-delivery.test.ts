// The outbound relay in-process, against a fake service WebSocket server and real loopback
// receivers: a transmit delivered over MLLP with its ACK text reported, HTTP and folder targets,
// the allow-list, one delivery per delivery id (and another attempt for one that failed or was
// reprocessed), one
// kept-open MLLP connection per destination (replaced when the receiver closes or drops it, closed
// when idle), reconnects with backoff, and outcomes the service did not acknowledge reported again
// after reconnecting.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mllpPeer } from "../../test/setup/outbound-peers";
import { MllpLinks } from "../src/relay/mllp";
import { FakeWorker } from "./support/fake-worker";
import { FakeRelayService, MllpReceiver, TEST_CREDENTIAL } from "./support/fake-relay-service";
import { fixture, withHeader } from "./support/fixtures";
import { startTestBridge, tempDir, waitFor } from "./support/harness";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(extra: Record<string, string> = {}) {
  const service = await FakeRelayService.start();
  cleanups.push(() => service.close());
  const worker = await FakeWorker.start();
  cleanups.push(() => worker.close());
  const receiver = await MllpReceiver.start();
  cleanups.push(() => receiver.close());
  const harness = await startTestBridge(worker, { BRIDGE_CREDENTIAL: TEST_CREDENTIAL, RELAY_URL: service.relayUrl, ...extra });
  cleanups.push(() => harness.stop());
  await waitFor(() => service.connected && service.hellos.length > 0, "relay connected");
  return { service, receiver, harness };
}

const oru = (controlId: string) => withHeader(fixture("ORU-R01-01.hl7"), "CDIS", "HOSP", controlId);

describe("relay delivery", () => {
  it("says hello, delivers a transmit over MLLP and reports the receiver's ACK text", async () => {
    const { service, receiver, harness } = await setUp();
    expect(service.hellos[0]?.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(service.hellos[0]?.host).not.toBe("");
    service.transmit({ delivery_id: "d-1", address: `mllp://127.0.0.1:${receiver.port}`, body: oru("OUT-1") });
    const [outcome] = await waitFor(() => (service.outcomesOf("d-1").length > 0 ? service.outcomesOf("d-1") : null), "outcome");
    // The receiver answers a commit ACK (CA) when MSH-15 asks for one, else AA.
    expect(outcome?.result).toMatchObject({ ok: true, ack_code: expect.stringMatching(/^[AC]A$/) });
    expect(outcome?.result.response).toMatch(new RegExp(`^MSH\\|.*\rMSA\\|${outcome?.result.ack_code}\\|OUT-1`, "s"));
    expect(receiver.received).toEqual(["OUT-1"]);
    expect(harness.bridge.relay?.state()).toMatchObject({ connected: true, in_flight: 0 });
  });

  it("delivers a delivery id once: a repeat is answered with the stored outcome, also while in flight", async () => {
    const { service, receiver } = await setUp();
    receiver.delayMs = 300;
    const address = `mllp://127.0.0.1:${receiver.port}`;
    service.transmit({ delivery_id: "dup-1", address, body: oru("DUP-1") });
    service.transmit({ delivery_id: "dup-1", address, body: oru("DUP-1") });
    await waitFor(() => service.outcomesOf("dup-1").length === 1, "first outcome");
    service.transmit({ delivery_id: "dup-1", address, body: oru("DUP-1") });
    await waitFor(() => service.outcomesOf("dup-1").length === 2, "repeat answered");
    const [first, repeat] = service.outcomesOf("dup-1");
    expect(first?.result.ok).toBe(true);
    expect(repeat?.result).toEqual(first?.result);
    expect(receiver.received).toEqual(["DUP-1"]);
  });

  it("delivers a delivery id again when the service retries one whose stored outcome is a failure", async () => {
    const { service, receiver } = await setUp();
    // Refused first (nothing listens on port 1); the service's retry carries the fixed address.
    service.transmit({ delivery_id: "again-1", address: "mllp://127.0.0.1:1", body: oru("AGAIN-1") });
    await waitFor(() => service.outcomesOf("again-1").length === 1, "first outcome");
    expect(service.outcomesOf("again-1")[0]?.result).toMatchObject({ ok: false, failure: { class: "refused" } });
    service.transmit({ delivery_id: "again-1", address: `mllp://127.0.0.1:${receiver.port}`, body: oru("AGAIN-1") });
    await waitFor(() => service.outcomesOf("again-1").length === 2, "outcome of the retry");
    expect(service.outcomesOf("again-1")[1]?.result).toMatchObject({ ok: true });
    // Delivered now: a further repeat is answered from the stored outcome, not sent again.
    service.transmit({ delivery_id: "again-1", address: `mllp://127.0.0.1:${receiver.port}`, body: oru("AGAIN-1") });
    await waitFor(() => service.outcomesOf("again-1").length === 3, "repeat answered");
    expect(service.outcomesOf("again-1")[2]?.result).toEqual(service.outcomesOf("again-1")[1]?.result);
    expect(receiver.received).toEqual(["AGAIN-1"]);
  });

  it("delivers a delivered id again when the operator reprocessed it (a higher round); a repeat of that round is answered from storage", async () => {
    const { service, receiver } = await setUp();
    const address = `mllp://127.0.0.1:${receiver.port}`;
    service.transmit({ delivery_id: "re-1", address, body: oru("RE-1") });
    await waitFor(() => service.outcomesOf("re-1").length === 1, "first outcome");
    service.transmit({ delivery_id: "re-1", round: 1, address, body: oru("RE-1") });
    await waitFor(() => service.outcomesOf("re-1").length === 2, "outcome of the reprocess");
    service.transmit({ delivery_id: "re-1", round: 1, address, body: oru("RE-1") });
    await waitFor(() => service.outcomesOf("re-1").length === 3, "repeat of round 1 answered");
    // An older round than the one held is a stale repeat, answered too.
    service.transmit({ delivery_id: "re-1", address, body: oru("RE-1") });
    await waitFor(() => service.outcomesOf("re-1").length === 4, "stale repeat answered");
    expect(service.outcomesOf("re-1").map((o) => o.result.ok)).toEqual([true, true, true, true]);
    expect(receiver.received).toEqual(["RE-1", "RE-1"]);
  });

  it("delivers to HTTP and folder targets, and refuses addresses off the allow-list", async () => {
    const out = tempDir("relay-out-");
    cleanups.push(() => out.remove());
    const requests: { method: string; url: string; id: string | undefined; body: string }[] = [];
    const http = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        requests.push({ method: req.method ?? "", url: req.url ?? "", id: req.headers["x-cdis-delivery-id"] as string | undefined, body });
        res.writeHead(req.url?.includes("missing") ? 404 : 201, { "content-type": "application/json" }).end('{"stored":true}');
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const { service } = await setUp({ RELAY_ALLOW: `127.0.0.0/8,file://${out.dir}` });
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/fhir`;

    service.transmit({ delivery_id: "h-1", address: base, body: '{"resourceType":"Patient"}', path: "Patient/1", method: "PUT", content_type: "application/fhir+json" });
    service.transmit({ delivery_id: "h-2", address: `${base}/missing`, body: "{}" });
    service.transmit({ delivery_id: "f-1", address: `file://${out.dir}/lis`, body: oru("FILE-1") });
    service.transmit({ delivery_id: "no-1", address: "mllp://192.168.1.20:2575", body: oru("NO-1") });
    service.transmit({ delivery_id: "no-2", address: "file:///etc", body: "x" });
    await waitFor(() => ["h-1", "h-2", "f-1", "no-1", "no-2"].every((id) => service.outcomesOf(id).length === 1), "five outcomes");

    expect(service.outcomesOf("h-1")[0]?.result).toMatchObject({ ok: true, status: 201, response: '{"stored":true}' });
    expect(service.outcomesOf("h-2")[0]?.result).toMatchObject({ ok: false, status: 404, failure: { class: "client_error" } });
    expect(requests.find((r) => r.id === "h-1")).toEqual({ method: "PUT", url: "/fhir/Patient/1", id: "h-1", body: '{"resourceType":"Patient"}' });
    expect(service.outcomesOf("f-1")[0]?.result).toMatchObject({ ok: true });
    expect(readFileSync(path.join(out.dir, "lis", "f-1.hl7"), "utf8")).toBe(oru("FILE-1"));
    expect(readdirSync(path.join(out.dir, "lis"))).toEqual(["f-1.hl7"]);
    expect(service.outcomesOf("no-1")[0]?.result).toMatchObject({ ok: false, failure: { class: "not_allowed" } });
    expect(service.outcomesOf("no-2")[0]?.result).toMatchObject({ ok: false, failure: { class: "not_allowed" } });
    expect(existsSync("/etc/no-2.dat")).toBe(false);
  });

  it("carries a destination's MLLP messages over one kept-open connection; one the receiver closed or dropped is replaced; another destination has its own", async () => {
    // The test/setup receiver numbers each message with the connection it came on.
    const peer = await mllpPeer([{ reply: "AA" }, { reply: "AA", close_after: true }, { reply: "drop" }]);
    cleanups.push(() => peer.close());
    const { service } = await setUp();
    const address = `mllp://127.0.0.1:${peer.port}`;
    // As the service sends them: one message of a destination at a time, the next after the outcome.
    const send = async (id: string, destination = "dest-1", n = 1) => {
      service.transmit({ delivery_id: id, destination_id: destination, address, body: oru(id) });
      return (await waitFor(() => service.outcomesOf(id)[n - 1], `outcome ${n} of ${id}`)).result;
    };
    expect(await send("K1")).toMatchObject({ ok: true, ack_code: "AA" });
    expect(await send("K2")).toMatchObject({ ok: true, ack_code: "AA" });
    // The receiver closed the connection after K2's ACK: K3 goes on a new one, which it drops on the frame.
    expect(await send("K3")).toMatchObject({ ok: false, failure: { class: "refused" } });
    // The service's retry (same delivery id, its stored outcome a failure) goes on a third.
    expect(await send("K3", "dest-1", 2)).toMatchObject({ ok: true, ack_code: "AA" });
    expect(await send("K4")).toMatchObject({ ok: true });
    expect(await send("X1", "dest-2")).toMatchObject({ ok: true });
    expect(await send("K5")).toMatchObject({ ok: true });
    expect(peer.received.map((r) => [r.body.split("\r")[0]?.split("|")[9], r.connection])).toEqual([
      ["K1", 1],
      ["K2", 1],
      ["K3", 2],
      ["K3", 3],
      ["K4", 3],
      ["X1", 4],
      ["K5", 3],
    ]);
  });

  it("closes a connection left idle; the next message opens another", async () => {
    const peer = await mllpPeer();
    cleanups.push(() => peer.close());
    const links = new MllpLinks(50);
    cleanups.push(() => links.closeAll());
    expect(await links.send("d", "127.0.0.1", peer.port, oru("I1"), 2_000)).toMatchObject({ ok: true });
    expect(links.held()).toBe(1);
    await waitFor(() => links.held() === 0, "idle connection closed");
    expect(await links.send("d", "127.0.0.1", peer.port, oru("I2"), 2_000)).toMatchObject({ ok: true });
    expect(peer.received.map((r) => r.connection)).toEqual([1, 2]);
  });

  it("classifies MLLP failures: refused connection", async () => {
    const { service } = await setUp();
    service.transmit({ delivery_id: "r-1", address: "mllp://127.0.0.1:1", body: oru("R-1") });
    const [outcome] = await waitFor(() => (service.outcomesOf("r-1").length > 0 ? service.outcomesOf("r-1") : null), "outcome");
    expect(outcome?.result).toMatchObject({ ok: false, failure: { class: "refused" } });
  });
});

describe("relay connection", () => {
  it("reconnects with growing, jittered delays after refusals and drops", async () => {
    const service = await FakeRelayService.start();
    cleanups.push(() => service.close());
    const worker = await FakeWorker.start();
    cleanups.push(() => worker.close());
    service.refuseNext = 5;
    const harness = await startTestBridge(worker, { BRIDGE_CREDENTIAL: TEST_CREDENTIAL, RELAY_URL: service.relayUrl, RETRY_BASE_MS: "40", RETRY_MAX_MS: "2000" });
    cleanups.push(() => harness.stop());
    // The hello follows the connection as a message of its own: dropping before it arrives would lose it.
    await waitFor(() => service.connected && service.hellos.length === 1, "connected after five refusals, hello sent", 20_000);
    const attempts = [...service.refusedAt, service.connectedAt[0] ?? 0];
    const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] ?? 0));
    // Retry n waits between half and all of 40 ms * 2^(n-1) (plus connect time).
    for (const [i, gap] of gaps.entries()) expect(gap, `gap ${i + 1}`).toBeGreaterThanOrEqual(0.5 * 40 * 2 ** i - 5);
    expect(gaps[4]).toBeGreaterThan(gaps[0] ?? 0);
    // A dropped connection is remade, and the backoff starts again from the base.
    service.drop();
    await waitFor(() => service.connectedAt.length === 2 && service.connected && service.hellos.length === 2, "reconnected after a drop, hello sent");
    expect((service.connectedAt[1] ?? 0) - Date.now()).toBeLessThan(2000);
    expect(service.hellos).toHaveLength(2);
  });

  it("reports an outcome again after reconnecting until the service acknowledges it", async () => {
    const { service, receiver } = await setUp();
    service.autoAck = false;
    service.transmit({ delivery_id: "u-1", address: `mllp://127.0.0.1:${receiver.port}`, body: oru("U-1") });
    await waitFor(() => service.outcomesOf("u-1").length === 1, "outcome");
    service.autoAck = true;
    service.drop();
    await waitFor(() => service.outcomesOf("u-1").length === 2, "outcome re-sent after reconnect");
    // Acknowledged now: a third connection does not report it again.
    service.drop();
    await waitFor(() => service.connectedAt.length === 3 && service.hellos.length === 3, "third connection");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(service.outcomesOf("u-1")).toHaveLength(2);
    expect(receiver.received).toEqual(["U-1"]);
  });
});
