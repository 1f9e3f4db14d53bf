// The forwarder against a fake Worker that goes down, rejects, rate-limits or refuses the key:
// nothing is lost, order per sender holds, and a poison message does not block the line.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeWorker } from "./support/fake-worker";
import { fixture, withHeader } from "./support/fixtures";
import { getJson, startTestBridge, waitFor } from "./support/harness";
import { MllpClient, msa } from "./support/mllp-client";

const adt = fixture("ADT-A01-01.hl7");
const oru = fixture("ORU-R01-01.hl7");
let worker: FakeWorker;
let harness: Awaited<ReturnType<typeof startTestBridge>>;

beforeEach(async () => {
  worker = await FakeWorker.start();
});
afterEach(async () => {
  await harness?.stop();
  await worker?.close();
});

async function sendAll(senders: number, perSender: number, prefix: string): Promise<void> {
  await Promise.all(
    Array.from({ length: senders }, async (_, s) => {
      const client = await MllpClient.connect(harness.bridge.mllpPort);
      for (let i = 0; i < perSender; i++) {
        const reply = msa(await client.send(withHeader(i % 3 ? adt : oru, `${prefix}${s}`, "FAC", `${prefix}${s}-${i}`)));
        expect(["AA", "CA"]).toContain(reply.code);
      }
      client.close();
    }),
  );
}

const expectedOrder = (prefix: string, s: number, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${s}-${i}`);

describe("forwarding", () => {
  it("keeps everything while the Worker is down and delivers it in order per sender when it is back", async () => {
    harness = await startTestBridge(worker, { BATCH_MAX_MESSAGES: "7" });
    worker.down = true;
    await sendAll(4, 20, "DOWN");
    await waitFor(() => worker.requests.length === 0 && harness.bridge.metrics.worker.consecutiveFailures >= 2, "failed attempts");
    type Status = { queue_depth: number; worker: { reachable: boolean }; protocols: Record<string, unknown> };
    const status = await getJson<Status>(harness.bridge.statusPort, "/status");
    expect(status.body.queue_depth).toBe(80);
    expect(status.body.worker.reachable).toBe(false);
    expect(status.body.protocols).toEqual({
      hl7v2: { queue_depth: 80, error_queue_depth: 0, worker: expect.objectContaining({ reachable: false }) },
      // Every protocol the bridge forwards has a lane; X12's and the device readings' are idle here.
      x12: { queue_depth: 0, error_queue_depth: 0, worker: expect.objectContaining({ reachable: null }) },
      "device-readings": { queue_depth: 0, error_queue_depth: 0, worker: expect.objectContaining({ reachable: null }) },
    });

    worker.failStatus = 503;
    worker.down = false;
    await waitFor(() => worker.requests.some((r) => r.status === 503), "a 503 answer");
    worker.failStatus = null;
    await waitFor(() => worker.accepted.length === 80, "all 80 forwarded");
    for (let s = 0; s < 4; s++) expect(worker.acceptedFrom(`DOWN${s}|FAC`)).toEqual(expectedOrder("DOWN", s, 20));
    expect(worker.deliveries).toHaveLength(80);
    const after = await getJson<{ queue_depth: number; worker: { reachable: boolean }; counters: { forwarded: number } }>(
      harness.bridge.statusPort,
      "/status",
    );
    expect(after.body).toMatchObject({ queue_depth: 0, worker: { reachable: true }, counters: { forwarded: 80 } });
  });

  it("moves rejected messages to the error queue without blocking the sender, and retries one on request", async () => {
    harness = await startTestBridge(worker, { BATCH_MAX_MESSAGES: "3" });
    worker.rejectWhen = (raw) => (raw.includes("|POISON-") ? "cannot convert" : null);
    const client = await MllpClient.connect(harness.bridge.mllpPort);
    const ids = ["OK-1", "POISON-2", "OK-3", "OK-4", "POISON-5", "OK-6"];
    for (const id of ids) expect(msa(await client.send(withHeader(adt, "REJ", "FAC", id))).code).toBe("AA");
    client.close();
    await waitFor(() => worker.acceptedFrom("REJ|FAC").length === 4, "good messages forwarded");
    expect(worker.acceptedFrom("REJ|FAC")).toEqual(["OK-1", "OK-3", "OK-4", "OK-6"]);

    type Errors = { errors: { id: string; protocol: string; origin: string; control_id: string; error: { message: string } }[] };
    const { body } = await getJson<Errors>(harness.bridge.statusPort, "/errors");
    const poisoned = body.errors.filter((e) => e.origin === "worker");
    expect(poisoned.map((e) => e.control_id)).toEqual(["POISON-2", "POISON-5"]);
    expect(poisoned[0]?.error.message).toBe("cannot convert");
    expect(poisoned[0]?.protocol).toBe("hl7v2");

    worker.rejectWhen = () => null;
    const target = poisoned[0]?.id ?? "";
    const retried = await getJson<{ result: string }>(harness.bridge.statusPort, `/errors/${target}/retry`, "POST");
    expect(retried).toEqual({ status: 200, body: { id: target, result: "requeued" } });
    await waitFor(() => worker.acceptedFrom("REJ|FAC").includes("POISON-2"), "retried message accepted");
    expect(worker.deliveries.filter((d) => d.controlId === "POISON-2").map((d) => d.id)).toEqual([target, target]);
    const again = await getJson<{ result: string }>(harness.bridge.statusPort, `/errors/${target}/retry`, "POST");
    expect(again.status).toBe(404);
    const status = await getJson<{ error_queue_depth: number; counters: { rejected: number } }>(harness.bridge.statusPort, "/status");
    expect(status.body).toMatchObject({ error_queue_depth: 1, counters: { rejected: 2 } });
  });

  it("honours Retry-After on 429", async () => {
    harness = await startTestBridge(worker);
    worker.failStatus = 429;
    worker.retryAfter = "1";
    const client = await MllpClient.connect(harness.bridge.mllpPort);
    expect(msa(await client.send(withHeader(adt, "RATE", "FAC", "RATE-1"))).code).toBe("AA");
    client.close();
    await waitFor(() => worker.requests.length >= 1, "first attempt");
    // Let the 429 be the only failure the bridge sees; it must wait a full second before trying again.
    worker.failStatus = null;
    await waitFor(() => worker.accepted.length === 1, "delivery after the wait", 15_000);
    const [limited, delivered] = worker.requests;
    expect(limited?.status).toBe(429);
    expect(delivered?.status).toBe(200);
    expect((delivered?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(delivered?.idempotencyKey).toBe(limited?.idempotencyKey);
  });

  it("keeps the queue and retries slowly when the Worker refuses the API key", async () => {
    harness = await startTestBridge(worker, { BRIDGE_API_KEY: "wrong-key", MISCONFIGURED_RETRY_MS: "300" });
    const client = await MllpClient.connect(harness.bridge.mllpPort);
    expect(msa(await client.send(withHeader(adt, "AUTH", "FAC", "AUTH-1"))).code).toBe("AA");
    client.close();
    await waitFor(() => worker.requests.length >= 3, "three refused attempts", 15_000);
    const gaps = worker.requests.slice(1, 3).map((r, i) => r.at - (worker.requests[i]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(290);
    expect(worker.requests.every((r) => r.status === 401)).toBe(true);
    const status = await getJson<{ queue_depth: number; last_error: { message: string } }>(harness.bridge.statusPort, "/status");
    expect(status.body.queue_depth).toBe(1);
    expect(status.body.last_error.message).toContain("401");
  });

  it("retries a batch that timed out, with the same ids, and the Worker's dedup keeps one copy", async () => {
    harness = await startTestBridge(worker, { REQUEST_TIMEOUT_MS: "300" });
    worker.delayMs = 1000;
    const client = await MllpClient.connect(harness.bridge.mllpPort);
    expect(msa(await client.send(withHeader(adt, "SLOW", "FAC", "SLOW-1"))).code).toBe("AA");
    client.close();
    await waitFor(() => worker.deliveries.length >= 1, "the slow delivery");
    worker.delayMs = 0;
    await waitFor(() => harness.bridge.queue.depths().pending === 0, "queue drained");
    expect(worker.accepted.map((m) => m.controlId)).toEqual(["SLOW-1"]);
    expect(new Set(worker.deliveries.map((d) => d.id)).size).toBe(1);
  });
});
