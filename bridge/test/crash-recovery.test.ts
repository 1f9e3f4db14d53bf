// kill -9 of the bridge process mid-stream: every message ACKed before the kill reaches the
// Worker exactly once, in order per sender, after a restart on the same data directory.
import { afterEach, expect, it } from "vitest";
import { type ChildBridge, spawnBridge, stopBridge } from "./support/child-bridge";
import { FakeWorker } from "./support/fake-worker";
import { fixture, withHeader } from "./support/fixtures";
import { bridgeEnv, tempDir, waitFor } from "./support/harness";
import { MllpClient, msa } from "./support/mllp-client";

const SENDERS = 4;
const PER_SENDER = 150;
const KILL_AFTER_ACKS = 160;
const samples = [fixture("ADT-A01-01.hl7"), fixture("ADT-A01-02.hl7"), fixture("ORU-R01-01.hl7")];
const message = (s: number, i: number) => withHeader(samples[i % samples.length] ?? "", `KILL${s}`, "FAC", `K${s}-${i}`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Sends this sender's messages from `from` on, one at a time, until done or the connection dies. */
async function runSender(port: number, s: number, from: number, acked: Set<string>): Promise<number> {
  const client = await MllpClient.connect(port);
  let i = from;
  try {
    for (; i < PER_SENDER; i++) {
      const reply = msa(await client.send(message(s, i)));
      if (reply.code !== "AA" && reply.code !== "CA") throw new Error(`unexpected ${reply.code} for K${s}-${i}`);
      acked.add(`K${s}-${i}`);
    }
  } catch {
    // The bridge was killed: the sender resends from its first unacknowledged message.
  } finally {
    client.close();
  }
  return i;
}

it("delivers every message ACKed before a SIGKILL exactly once, in order per sender", async () => {
  const worker = await FakeWorker.start();
  cleanups.push(() => worker.close());
  const temp = tempDir();
  cleanups.push(() => temp.remove());
  // A slow Worker and small batches keep a backlog, so the kill lands with messages ACKed but
  // not yet forwarded and usually with a batch in flight.
  worker.delayMs = 40;
  const env = bridgeEnv(worker, temp.dir, { BATCH_MAX_MESSAGES: "10", LOG_LEVEL: "warn" });

  let bridge: ChildBridge = await spawnBridge(env);
  cleanups.push(() => stopBridge(bridge, "SIGKILL"));
  const acked = new Set<string>();
  const firstRun = Array.from({ length: SENDERS }, (_, s) => runSender(bridge.mllpPort, s, 0, acked));
  await waitFor(() => acked.size >= KILL_AFTER_ACKS, "acks before the kill");
  bridge.child.kill("SIGKILL");
  const ackedBeforeKill = new Set(acked);
  const forwardedAtKill = worker.accepted.length;
  expect(await bridge.exited).toBe("SIGKILL");
  const resumeAt = await Promise.all(firstRun);
  expect(forwardedAtKill).toBeLessThan(ackedBeforeKill.size);

  worker.delayMs = 0;
  bridge = await spawnBridge(env);
  await Promise.all(resumeAt.map((from, s) => runSender(bridge.mllpPort, s, from, acked)));
  await waitFor(() => worker.accepted.length === SENDERS * PER_SENDER, "every message forwarded", 60_000);

  for (let s = 0; s < SENDERS; s++) {
    expect(worker.acceptedFrom(`KILL${s}|FAC`)).toEqual(Array.from({ length: PER_SENDER }, (_, i) => `K${s}-${i}`));
  }
  const accepted = new Set(worker.accepted.map((m) => m.controlId));
  for (const id of ackedBeforeKill) expect(accepted.has(id)).toBe(true);
  // Resends after the restart carry the id assigned before the kill: one bridge id per message.
  const idsPerMessage = new Map<string, Set<string>>();
  for (const d of worker.deliveries) idsPerMessage.set(d.controlId, (idsPerMessage.get(d.controlId) ?? new Set()).add(d.id));
  expect([...idsPerMessage.values()].every((ids) => ids.size === 1)).toBe(true);
  await waitFor(async () => {
    const response = await fetch(`http://127.0.0.1:${bridge.statusPort}/status`);
    return ((await response.json()) as { queue_depth: number }).queue_depth === 0;
  }, "queue drained");
  await stopBridge(bridge);
  expect(await bridge.exited).toBe(0);
});
