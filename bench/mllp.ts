// Benchmark: durable ACKs/s and ACK latency of the MLLP bridge on loopback, N concurrent
// connections sending ADT^A01 and ORU^R01, against a baseline (same MLLP stack, no queue).
// Run: npx tsx bench/mllp.ts [--connections 32] [--messages 20000] [--seconds 60]
import { type ChildBridge, REPO_ROOT, spawnBridge, stopBridge } from "../bridge/test/support/child-bridge";
import { FakeWorker } from "../bridge/test/support/fake-worker";
import { fixture, withHeader } from "../bridge/test/support/fixtures";
import { bridgeEnv, tempDir, waitFor } from "../bridge/test/support/harness";
import { MllpClient, msa } from "../bridge/test/support/mllp-client";
import { allMeasured, sampled } from "./lib/measured";
import { numberOption } from "./lib/options";

const connections = numberOption("connections", 32, { integer: true });
const total = numberOption("messages", 20_000, { integer: true });
const maxMs = numberOption("seconds", 60) * 1000;
const samples = [fixture("ADT-A01-01.hl7"), fixture("ORU-R01-01.hl7")];

interface Run {
  acks: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** Each connection sends its share one message at a time (as MLLP senders do), timing each ACK. */
async function load(port: number, label: string): Promise<Run> {
  const perConnection = Math.ceil(total / connections);
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + maxMs;
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      const client = await MllpClient.connect(port);
      for (let i = 0; i < perConnection && performance.now() < deadline; i++) {
        const message = withHeader(samples[i % 2] ?? "", `BENCH-${label}-${c}`, "FAC", `${label}-${c}-${i}`);
        const sent = performance.now();
        const reply = msa(await client.send(message));
        latencies.push(performance.now() - sent);
        if (!["AA", "CA"].includes(reply.code)) throw new Error(`unexpected ${reply.code} from ${label}`);
      }
      client.close();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  sampled(`${label} ACK latencies`, latencies);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { acks: latencies.length, seconds, p50: at(0.5), p99: at(0.99) };
}

const worker = await FakeWorker.start();
const temp = tempDir("bridge-bench-");
const children: ChildBridge[] = [];
try {
  const echo = await spawnBridge({}, `${REPO_ROOT}/bench/lib/mllp-echo-server.ts`);
  children.push(echo);
  await load(echo.mllpPort, "warm");
  const baseline = await load(echo.mllpPort, "echo");
  await stopBridge(echo);

  const bridge = await spawnBridge(bridgeEnv(worker, temp.dir, { LOG_LEVEL: "warn" }));
  children.push(bridge);
  const durable = await load(bridge.mllpPort, "bridge");
  const drainStart = performance.now();
  await waitFor(() => worker.accepted.length >= durable.acks, "forwarding to drain", 120_000);
  const drainSeconds = (performance.now() - drainStart) / 1000;
  await stopBridge(bridge);

  const row = (name: string, r: Run) =>
    `${name.padEnd(28)} ${String(r.acks).padStart(7)} ${(r.acks / r.seconds).toFixed(0).padStart(9)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}`;
  const rate = (r: Run) => r.acks / r.seconds;
  // Every ACK'd message must reach the (fake) Worker: one missing is an error, not a figure.
  allMeasured([
    { label: "baseline acks/s", value: rate(baseline) },
    { label: "durable acks/s", value: rate(durable), errors: durable.acks - Math.min(durable.acks, worker.accepted.length) },
  ]);
  console.log(`MLLP bridge benchmark: ${connections} connections, ADT^A01 + ORU^R01, loopback`);
  console.log(`${"".padEnd(28)} ${"acks".padStart(7)} ${"acks/s".padStart(9)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}`);
  console.log(row("baseline (echo, no queue)", baseline));
  console.log(row("bridge (durable ACK)", durable));
  console.log(`ratio durable/baseline: ${(rate(durable) / rate(baseline)).toFixed(2)}`);
  console.log(`forwarded to fake Worker: ${worker.accepted.length} (backlog drained ${drainSeconds.toFixed(2)} s after the last ACK)`);
  console.log(`target >= 2000 durable ACKs/s: ${rate(durable) >= 2000 ? "met" : "NOT met"}`);
} finally {
  for (const child of children) await stopBridge(child, "SIGKILL");
  await worker.close();
  temp.remove();
}
