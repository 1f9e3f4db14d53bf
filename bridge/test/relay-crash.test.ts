// kill -9 of the bridge process while the relay delivers: after a restart on the same data
// directory every transmit reaches the MLLP receiver (0 lost), any message delivered twice is the
// same delivery id delivered again (the id is the message's MSH-10 here), and every outcome
// reaches the service. The fake service resends what has no outcome, as the destinations' queue
// retries an attempt that got none.
import { afterEach, expect, it } from "vitest";
import { type ChildBridge, spawnBridge, stopBridge } from "./support/child-bridge";
import { FakeRelayService, MllpReceiver, TEST_CREDENTIAL } from "./support/fake-relay-service";
import { FakeWorker } from "./support/fake-worker";
import { fixture, withHeader } from "./support/fixtures";
import { bridgeEnv, tempDir, waitFor } from "./support/harness";

const TOTAL = 200;
const WINDOW = 8;
const KILL_AFTER_OUTCOMES = 60;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("loses nothing and repeats only the same delivery ids across a SIGKILL mid-delivery", async () => {
  const service = await FakeRelayService.start();
  cleanups.push(() => service.close());
  const worker = await FakeWorker.start();
  cleanups.push(() => worker.close());
  const receiver = await MllpReceiver.start();
  cleanups.push(() => receiver.close());
  receiver.delayMs = 15;
  const temp = tempDir();
  cleanups.push(() => temp.remove());
  const env = bridgeEnv(worker, temp.dir, { BRIDGE_CREDENTIAL: TEST_CREDENTIAL, RELAY_URL: service.relayUrl, LOG_LEVEL: "warn" });

  const ids = Array.from({ length: TOTAL }, (_, i) => `crash-${i}`);
  const body = (id: string) => withHeader(fixture("ORU-R01-01.hl7"), "CDIS", "HOSP", id);
  const answered = () => new Set(service.outcomes.map((o) => o.delivery_id));
  const sent = new Set<string>();
  // The service side: at most WINDOW transmits without an outcome at once.
  const pump = setInterval(() => {
    if (!service.connected) return;
    const done = answered();
    let open = [...sent].filter((id) => !done.has(id)).length;
    for (const id of ids) {
      if (open >= WINDOW) break;
      if (sent.has(id) || done.has(id)) continue;
      service.transmit({ delivery_id: id, address: `mllp://127.0.0.1:${receiver.port}`, body: body(id) });
      sent.add(id);
      open++;
    }
  }, 5);
  cleanups.push(() => clearInterval(pump));

  let bridge: ChildBridge = await spawnBridge(env);
  cleanups.push(() => stopBridge(bridge, "SIGKILL"));
  // Killed at a moment when the receiver holds a message the service has no outcome for yet (the
  // receiver answers after 15 ms), so the kill lands mid-delivery; nothing runs between the check and the kill.
  await waitFor(() => answered().size >= KILL_AFTER_OUTCOMES && receiver.received.length > answered().size, "outcomes before the kill, one in flight");
  const receivedAtKill = receiver.received.length;
  const answeredAtKill = answered().size;
  bridge.child.kill("SIGKILL");
  expect(await bridge.exited).toBe("SIGKILL");
  // Delivered (or being delivered) at the kill but not answered: in the bridge's table only.
  expect(receivedAtKill).toBeGreaterThan(answeredAtKill);

  // The service retries every transmit it has no outcome for, once the bridge is back.
  await waitFor(() => !service.connected, "connection gone");
  for (const id of [...sent]) if (!answered().has(id)) sent.delete(id);
  bridge = await spawnBridge(env);
  await waitFor(() => answered().size === TOTAL, "every outcome", 60_000);

  const received = receiver.received;
  expect(new Set(received)).toEqual(new Set(ids));
  expect(received.every((id) => ids.includes(id))).toBe(true);
  const repeats = received.length - TOTAL;
  // Only what was in flight at the kill can be delivered twice.
  expect(repeats).toBeLessThanOrEqual(WINDOW);
  for (const id of ids) expect(service.outcomesOf(id)[0]?.result.ok, id).toBe(true);
  await stopBridge(bridge);
  expect(await bridge.exited).toBe(0);
}, 120_000);
