// Outbound delivery through npm start's runtime (Miniflare), in one run:
//  1. inbound baseline: ADT^A01 + ORU^R01 over MLLP into a real bridge, durably ACKed and forwarded
//     to the Worker, timed from the first send until the Worker has stored every message;
//  2. the same messages enqueued to a destination (POST /api/v1/destinations/{id}/messages) with an
//     mllp connector target, timed from the first enqueue until a loopback MLLP receiver in this
//     process has ACKed (AA) every one, as a ratio to 1;
//  3. the same through the bridge: a `bridge` destination whose address is that receiver, relayed
//     by the same bridge process over its WebSocket, as a ratio to 1;
//  4. subscription notification latency: an R4 rest-hook Subscription (criteria Observation?code=…,
//     full-resource payload) to a loopback HTTP receiver in this process, --notifications (200)
//     Observations written one after another; each one's latency is from the start of its write
//     (POST /fhir/r4/{org}/Observation) until the receiver has its notification: p50/p99;
//  5. a backlog: a paused destination takes --messages (100,000) in batches of 100, workerd's RSS
//     read before, every 10,000 and after (the queue is the Durable Object's SQLite, so it should
//     stay flat); then resumed, the drain rate until the receiver has ACKed all (then depth 0 checked).
// Completion is read off the receiver; the destination's figures (GET /api/v1/destinations/{id},
// a scan of its queue on the object's thread) only every few seconds, for dead letters.
// Usage: npx tsx bench/outbound.ts [--messages 100000] [--rate-messages 2000] [--concurrency 16] [--keys 64] [--notifications 200]
// (--concurrency: the destinations' per_key concurrency, and the inbound run's MLLP connections).
import { createServer } from "node:http";
import net from "node:net";
import { frame, MllpDecoder } from "../bridge/src/listeners/mllp/framing";
import { type ChildBridge, spawnBridge, stopBridge } from "../bridge/test/support/child-bridge";
import { fixture, withHeader } from "../bridge/test/support/fixtures";
import { bridgeEnv, tempDir } from "../bridge/test/support/harness";
import { MllpClient, msa } from "../bridge/test/support/mllp-client";
import { allMeasured, NothingMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { mib, rssBytes, workerdPids } from "./lib/rss";
import { type RunningWorker, startWorker } from "./lib/worker";

const BACKLOG = numberOption("messages", 100_000, { integer: true });
const RATE_MESSAGES = numberOption("rate-messages", 2_000, { integer: true });
const CONCURRENCY = numberOption("concurrency", 16, { integer: true });
const KEYS = numberOption("keys", 64, { integer: true });
const NOTIFICATIONS = numberOption("notifications", 200, { integer: true });
const BATCH = 100;
const POSTERS = 4;
/** How often a waiting phase reads the destination's figures (each is a scan of its queue). */
const FIGURES_EVERY_MS = 5_000;
const PHASE_DEADLINE_MS = 10 * 60_000;
const DRAIN_DEADLINE_MS = 60 * 60_000;
const SAMPLES = [fixture("ADT-A01-01.hl7"), fixture("ORU-R01-01.hl7")];

/** The sample message `i` of a run, with its own MSH-10 (`<run>-<i>`). */
const message = (run: string, i: number) => withHeader(SAMPLES[i % 2] ?? "", "CDIS", "BENCH", `${run}-${i}`);
const controlId = (hl7: string) => hl7.split("\r")[0]?.split("|")[9] ?? "";

/** A loopback MLLP receiver: ACKs every frame AA on its connection and timestamps it by MSH-10. */
async function mllpReceiver() {
  const received = new Map<string, number>();
  let frames = 0;
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    const decoder = new MllpDecoder(16 * 1024 * 1024);
    socket.on("data", (data: Buffer) => {
      for (const event of decoder.push(data)) {
        if (event.kind !== "frame") continue;
        frames++;
        const control = controlId(event.payload.toString("utf8"));
        if (!received.has(control)) received.set(control, performance.now());
        socket.write(frame(Buffer.from(`MSH|^~\\&|RCV|RCV|CDIS|BENCH|20260101000000||ACK^A01^ACK|ACK-${control}|P|2.5.1\rMSA|AA|${control}`)));
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    received,
    frames: () => frames,
    /** How many of `run`'s messages were ACKed, and when the last of them was. */
    of(run: string): { count: number; last: number } {
      let count = 0;
      let last = 0;
      for (const [control, at] of received) {
        if (!control.startsWith(`${run}-`)) continue;
        count++;
        last = Math.max(last, at);
      }
      return { count, last };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function api<T = Record<string, unknown>>(w: RunningWorker, path: string, init: RequestInit & { json?: unknown } = {}, expect = [200, 201, 202]): Promise<T> {
  const { json, ...rest } = init;
  const res = await fetch(`${w.url}${path}`, { ...rest, headers: { ...w.headers, "content-type": "application/json", ...(rest.headers ?? {}) }, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
  if (!expect.includes(res.status)) throw new Error(`${rest.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(check: () => Promise<T | undefined | false>, label: string, deadlineMs: number, intervalMs = 50): Promise<T> {
  const end = performance.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > end) throw new NothingMeasured(`${label}: not done within ${deadlineMs / 1000} s`);
    await sleep(intervalMs);
  }
}

interface Figures {
  depth: number;
  in_flight: number;
  dead: number;
}
const figures = async (w: RunningWorker, id: string) => (await api<{ figures: Figures }>(w, `/api/v1/destinations/${id}`)).figures;

async function destination(w: RunningWorker, name: string, target: Record<string, unknown>): Promise<string> {
  const body = { name, target, ordering: "per_key", concurrency: CONCURRENCY, timeout_ms: 10_000, retry: { initial_delay_ms: 200, max_delay_ms: 2_000 } };
  return (await api<{ id: string }>(w, "/api/v1/destinations", { method: "POST", json: body })).id;
}

/** Enqueues messages `from`..`to` of `run` in batches of 100, POSTERS requests at a time; `onBatch` after each. */
async function enqueue(w: RunningWorker, id: string, run: string, from: number, to: number, onBatch?: (done: number) => void): Promise<void> {
  let next = from;
  let done = 0;
  await Promise.all(
    Array.from({ length: POSTERS }, async () => {
      while (next < to) {
        const start = next;
        next = Math.min(to, next + BATCH);
        const messages = Array.from({ length: next - start }, (_, k) => ({ id: `${run}-${start + k}`, key: `patient-${(start + k) % KEYS}`, body: message(run, start + k), content_type: "x-application/hl7-v2+er7" }));
        const res = await api<{ ids: string[]; duplicates: string[] }>(w, `/api/v1/destinations/${id}/messages`, { method: "POST", json: { messages } });
        if (res.ids.length !== messages.length || res.duplicates.length) throw new Error(`enqueue: ${res.ids.length} ids, ${res.duplicates.length} duplicates for ${messages.length} messages`);
        done += messages.length;
        onBatch?.(done);
      }
    }),
  );
}

/** Enqueued to destination `id` until the receiver ACKed all of them: messages/s, and dead ones (errors). */
async function outbound(w: RunningWorker, receiver: Awaited<ReturnType<typeof mllpReceiver>>, id: string, run: string) {
  const t0 = performance.now();
  await enqueue(w, id, run, 0, RATE_MESSAGES);
  const enqueued = performance.now();
  // Completion is read off the receiver (in this process): the destination's figures scan its
  // queue on the object's thread (hundreds of ms at depth), so they are read every few seconds only.
  let checked = performance.now();
  const { last } = await until(async () => {
    const r = receiver.of(run);
    if (r.count >= RATE_MESSAGES) return r;
    if (performance.now() - checked > FIGURES_EVERY_MS) {
      checked = performance.now();
      if ((await figures(w, id)).dead > 0) throw new NothingMeasured(`${run}: messages dead-lettered`);
    }
    return undefined;
  }, `${run} delivery`, PHASE_DEADLINE_MS);
  const f = await until(async () => {
    const v = await figures(w, id);
    return v.depth === 0 ? v : undefined;
  }, `${run} settled`, 30_000);
  return { rate: RATE_MESSAGES / ((last - t0) / 1000), enqueueRate: RATE_MESSAGES / ((enqueued - t0) / 1000), dead: f.dead };
}

/** A loopback rest-hook receiver: answers 200, and times each notification Bundle's focus resources by id. */
async function restHookReceiver() {
  const arrived = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      try {
        const bundle = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { entry?: { resource?: { resourceType?: string; id?: string } }[] };
        for (const e of bundle.entry ?? []) if (e.resource?.resourceType === "Observation" && e.resource.id && !arrived.has(e.resource.id)) arrived.set(e.resource.id, at);
      } catch {
        // A handshake without a body, or one that is not JSON: nothing to time.
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, arrived, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

/** Writes NOTIFICATIONS Observations one at a time; each one's latency until the rest-hook receiver has it. */
async function subscriptionLatency(w: RunningWorker) {
  const hook = await restHookReceiver();
  try {
    const fhir = (path: string, body: unknown) =>
      fetch(`${w.url}/fhir/r4/${w.orgId}/${path}`, { method: "POST", headers: { ...w.headers, "content-type": "application/fhir+json" }, body: JSON.stringify(body) });
    const code = { coding: [{ system: "http://loinc.org", code: "8867-4" }] };
    const created = await fhir("Subscription", {
      resourceType: "Subscription",
      status: "requested",
      reason: "bench",
      criteria: "Observation?code=http://loinc.org|8867-4",
      channel: { type: "rest-hook", endpoint: hook.url, payload: "application/fhir+json" },
    });
    if (created.status !== 201) throw new NothingMeasured(`Subscription not created: ${created.status} ${await created.text()}`);
    const sub = (await created.json()) as { id: string };
    await until(async () => ((await (await fetch(`${w.url}/fhir/r4/${w.orgId}/Subscription/${sub.id}`, { headers: w.headers })).json()) as { status: string }).status === "active", "subscription active", 30_000, 50);
    const latencies: number[] = [];
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const t0 = performance.now();
      const res = await fhir("Observation", { resourceType: "Observation", status: "final", code, subject: { reference: `Patient/bench-${i % 10}` }, valueQuantity: { value: 60 + (i % 40), unit: "/min" } });
      if (res.status !== 201) throw new NothingMeasured(`Observation ${i}: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      const at = await until(async () => hook.arrived.get(id), `notification ${i}`, 30_000, 1);
      latencies.push(at - t0);
    }
    latencies.sort((a, b) => a - b);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    await hook.close();
  }
}

/** The inbound MLLP path: CONCURRENCY connections into the bridge, each a message at a time, until the Worker stored all. */
async function inbound(w: RunningWorker, bridge: ChildBridge, run: string) {
  const stored = async () => (await api<{ total_count: number }>(w, "/api/hl7/messages?limit=1")).total_count;
  const before = await stored();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const client = await MllpClient.connect(bridge.mllpPort);
      while (next < RATE_MESSAGES) {
        const i = next++;
        const reply = msa(await client.send(message(run, i)));
        if (!["AA", "CA"].includes(reply.code)) throw new Error(`inbound: ${reply.code} from the bridge`);
      }
      client.close();
    }),
  );
  const acked = performance.now();
  await until(async () => (await stored()) - before >= RATE_MESSAGES, "inbound stored", PHASE_DEADLINE_MS, 100);
  const done = performance.now();
  return { rate: RATE_MESSAGES / ((done - t0) / 1000), ackRate: RATE_MESSAGES / ((acked - t0) / 1000) };
}

const worker = await startWorker({ runtime: "miniflare", limits: { apiPerMinute: 100_000_000 }, vars: { OUTBOUND_ALLOW: "127.0.0.1" } });
const receiver = await mllpReceiver();
const temp = tempDir("outbound-bench-");
let bridge: ChildBridge | undefined;
try {
  const pids = worker.pid ? workerdPids(worker.pid) : [];
  if (!pids.length) throw new NothingMeasured("no workerd process found to read RSS from");
  console.log(`npm start's runtime (Miniflare), ${RATE_MESSAGES} messages per rate run (ADT^A01 + ORU^R01), per_key concurrency ${CONCURRENCY} over ${KEYS} keys, ${CONCURRENCY} inbound MLLP connections; backlog ${BACKLOG}`);

  const registered = await api<{ id: string; credential: string }>(worker, "/api/v1/bridges", { method: "POST", json: { name: "bench bridge" } });
  bridge = await spawnBridge(bridgeEnv(worker, temp.dir, { BRIDGE_CREDENTIAL: registered.credential, REQUEST_TIMEOUT_MS: "20000", RETRY_MAX_MS: "500", LOG_LEVEL: "error" }));
  await until(async () => (await api<{ status: string }>(worker, `/api/v1/bridges/${registered.id}`)).status === "online", "bridge online", 30_000, 100);

  const connectorId = (await api<{ id: string }>(worker, "/api/connectors", { method: "POST", json: { name: "bench receiver", type: "mllp", endpoint: `mllp://127.0.0.1:${receiver.port}` } })).id;
  const viaWorker = await destination(worker, "bench receiver (Worker)", { kind: "connector", connector_id: connectorId });
  const viaBridge = await destination(worker, "bench receiver (bridge)", { kind: "bridge", bridge_id: registered.id, address: `mllp://127.0.0.1:${receiver.port}` });

  // Warm-up: each path once with a few messages (the first requests compile the Worker).
  const warm = (run: string, id: string) => enqueue(worker, id, run, 0, 50).then(() => until(async () => receiver.of(run).count >= 50 || undefined, `${run}`, 60_000));
  await warm("warm-w", viaWorker);
  await warm("warm-b", viaBridge);

  const inb = await inbound(worker, bridge, "in");
  const outW = await outbound(worker, receiver, viaWorker, "out-w");
  const outB = await outbound(worker, receiver, viaBridge, "out-b");
  allMeasured([
    { label: "inbound MLLP → bridge → Worker stored msg/s", value: inb.rate },
    { label: "outbound enqueue → Worker → MLLP ACK msg/s", value: outW.rate, errors: outW.dead },
    { label: "outbound enqueue → Worker → bridge → MLLP ACK msg/s", value: outB.rate, errors: outB.dead },
  ]);
  const ratio = (x: number) => `${(x / inb.rate).toFixed(2)}x inbound`;
  console.log(`inbound MLLP (baseline): ${inb.rate.toFixed(0)} msg/s stored in the Worker (bridge ACKs ${inb.ackRate.toFixed(0)}/s)`);
  console.log(`outbound via Worker (mllp connector): ${outW.rate.toFixed(0)} msg/s enqueue → ACK (enqueue alone ${outW.enqueueRate.toFixed(0)}/s), ${ratio(outW.rate)} (target >= 0.8x: ${outW.rate / inb.rate >= 0.8 ? "met" : "NOT met"})`);
  console.log(`outbound via bridge relay: ${outB.rate.toFixed(0)} msg/s enqueue → ACK (enqueue alone ${outB.enqueueRate.toFixed(0)}/s), ${ratio(outB.rate)} (target >= 0.8x: ${outB.rate / inb.rate >= 0.8 ? "met" : "NOT met"})`);

  const latency = await subscriptionLatency(worker);
  allMeasured([
    { label: "subscription notification p50 ms", value: latency.p50 },
    { label: "subscription notification p99 ms", value: latency.p99 },
  ]);
  console.log(`subscription notification (rest-hook, loopback receiver, ${NOTIFICATIONS} writes one at a time): p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms from the start of the write to the receiver`);

  // Backlog: paused while enqueued, then resumed and drained.
  const backlog = await destination(worker, "bench backlog", { kind: "connector", connector_id: connectorId });
  await api(worker, `/api/v1/destinations/${backlog}/pause`, { method: "POST", json: {} });
  const rssBefore = rssBytes(pids);
  const samples: { at: number; rss: number }[] = [];
  let nextSample = 10_000;
  const t0 = performance.now();
  await enqueue(worker, backlog, "bl", 0, BACKLOG, (done) => {
    while (done >= nextSample) {
      samples.push({ at: nextSample, rss: rssBytes(pids) });
      nextSample += 10_000;
    }
  });
  const enqueueSeconds = (performance.now() - t0) / 1000;
  const rssAfter = rssBytes(pids);
  const queued = await figures(worker, backlog);
  if (queued.depth !== BACKLOG) throw new NothingMeasured(`backlog depth ${queued.depth}, not ${BACKLOG}`);
  if (receiver.of("bl").count) throw new NothingMeasured("the paused destination delivered");
  console.log(`backlog: ${BACKLOG} messages enqueued to the paused destination in ${enqueueSeconds.toFixed(1)} s (${(BACKLOG / enqueueSeconds).toFixed(0)}/s), depth ${queued.depth}`);
  console.log(`workerd RSS before ${mib(rssBefore)}, after ${mib(rssAfter)} (${rssAfter >= rssBefore ? "+" : ""}${mib(rssAfter - rssBefore)}, ${(rssAfter / rssBefore).toFixed(2)}x before)`);
  console.log(`  per 10k: ${samples.map((s) => `${s.at / 1000}k ${mib(s.rss)}`).join(", ")}`);
  const per10k = samples.length > 1 ? (samples.at(-1)!.rss - samples[0]!.rss) / (samples.length - 1) : 0;
  console.log(`  growth per 10k messages after the first 10k: ${mib(per10k)}`);

  const d0 = performance.now();
  await api(worker, `/api/v1/destinations/${backlog}/resume`, { method: "POST", json: {} });
  let drainPeak = rssAfter;
  const drainSamples: { at: number; rss: number }[] = [];
  let nextDrainSample = 10_000;
  let checked = performance.now();
  const { last: drainEnd } = await until(
    async () => {
      const rss = rssBytes(pids);
      drainPeak = Math.max(drainPeak, rss);
      const r = receiver.of("bl");
      while (r.count >= nextDrainSample) {
        drainSamples.push({ at: nextDrainSample, rss });
        nextDrainSample += 10_000;
      }
      if (r.count >= BACKLOG) return r;
      if (performance.now() - checked > 6 * FIGURES_EVERY_MS) {
        checked = performance.now();
        if ((await figures(worker, backlog)).dead > 0) throw new NothingMeasured("backlog: messages dead-lettered");
      }
      return undefined;
    },
    "backlog drain",
    DRAIN_DEADLINE_MS,
    500,
  );
  const drainSeconds = (drainEnd - d0) / 1000;
  const f = await until(
    async () => {
      const v = await figures(worker, backlog);
      return v.depth === 0 ? v : undefined;
    },
    "backlog depth 0",
    60_000,
    1_000,
  );
  const drained = receiver.of("bl").count;
  allMeasured([
    { label: "backlog enqueue msg/s", value: BACKLOG / enqueueSeconds },
    { label: "workerd RSS after the backlog", value: rssAfter },
    { label: "backlog drain msg/s", value: drained / drainSeconds, errors: f.dead + (BACKLOG - drained) },
  ]);
  console.log(`drain after resume: ${drained} delivered in ${drainSeconds.toFixed(1)} s, ${(drained / drainSeconds).toFixed(0)} msg/s (${ratio(drained / drainSeconds)}), workerd RSS peak while draining ${mib(drainPeak)}, dead ${f.dead}`);
  console.log(`  RSS per 10k delivered: ${drainSamples.map((s) => `${s.at / 1000}k ${mib(s.rss)}`).join(", ")}; after the drain ${mib(rssBytes(pids))}`);
} finally {
  if (bridge) await stopBridge(bridge, "SIGKILL");
  await receiver.close();
  await worker.stop();
  temp.remove();
}
