// End-to-end inbound HL7 through the real Worker (wrangler dev): batches posted to
// /api/v1/hl7/messages as the bridge posts them, routed per sender into a deployed
// HL7-to-FHIR pipeline and stored, timed until every message is processed. Baseline
// in the same run: the same messages converted here and posted directly as FHIR
// transactions, i.e. the store's share of the cost. It also prints workerd's CPU time per
// message and how busy its busiest thread was. Usage: npx tsx bench/hl7-e2e.ts [--messages 200] [--senders 8] [--profile <dir>]
// (--profile writes a V8 CPU profile of the Worker per end-to-end run and prints its top functions).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { convertToFhir } from "../src/standards/hl7v2/convert/index";
import { allMeasured } from "./lib/measured";
import { numberOption, option } from "./lib/options";
import { startProfiler, summarize } from "./lib/profile";
import { cpuMs, threadCpuMs, workerdPids } from "./lib/rss";
import { freePort, startWorker, type RunningWorker } from "./lib/worker";

const MESSAGES = numberOption("messages", 200, { integer: true });
const PROFILE_DIR = option("profile");
const SENDERS = numberOption("senders", 8, { integer: true });
const BATCH = 50;
const DEADLINE_MS = 10 * 60_000;

const ts = "20260315083000";
const adt = (i: number) =>
  [
    `MSH|^~\\&|ADT|FAC${i % SENDERS}|CDIS|CDIS|${ts}||ADT^A01^ADT_A01|A${i}|P|2.5.1`,
    `EVN|A01|${ts}`,
    `PID|1||P${i}^^^FAC${i % SENDERS}^MR||Family${i}^Given^^^^^L||19700101|F|||Street ${i}^^City^^12345^DE`,
    `PV1|1|I|W1^101^1^FAC${i % SENDERS}||||1234^Doc^Dora|||MED|||||||||V${i}^^^FAC${i % SENDERS}^VN`,
  ].join("\r");
const oru = (i: number) =>
  [
    `MSH|^~\\&|LAB|FAC${i % SENDERS}|CDIS|CDIS|${ts}||ORU^R01^ORU_R01|R${i}|P|2.5.1`,
    `PID|1||P${i}^^^FAC${i % SENDERS}^MR||Family${i}^Given`,
    `OBR|1||F${i}|24323-8^Comprehensive metabolic panel^LN|||${ts}`,
    `OBX|1|NM|2345-7^Glucose^LN||${90 + (i % 40)}|mg/dL^mg/dL^UCUM|70-99||||F`,
    `OBX|2|NM|2160-0^Creatinine^LN||1.${i % 9}|mg/dL^mg/dL^UCUM|0.6-1.2||||F`,
    `OBX|3|NM|2951-2^Sodium^LN||${135 + (i % 8)}|mmol/L^mmol/L^UCUM|135-145||||F`,
  ].join("\r");

/**
 * One API call. wrangler dev sometimes restarts the Worker mid-request (503); ingestion is
 * idempotent on message id and MSH-10, so it is resent like the bridge would (others are not).
 */
async function api(w: RunningWorker, path: string, init: RequestInit = {}, retries = path.startsWith("/api/v1/hl7/") ? 3 : 0) {
  const res = await fetch(`${w.url}${path}`, { ...init, headers: { ...w.headers, "content-type": "application/json", ...(init.headers ?? {}) } });
  if (res.status === 503 && retries > 0) return api(w, path, init, retries - 1);
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

async function deployPipeline(w: RunningWorker): Promise<void> {
  const definition = {
    nodes: [
      { id: "in", type: "hl7.inbound_trigger", config: {} },
      { id: "fhir", type: "hl7.to_fhir", config: {} },
    ],
    connections: [{ from: { node: "in", port: "message" }, to: { node: "fhir", port: "message" } }],
  };
  const p = (await api(w, "/api/pipelines", { method: "POST", body: JSON.stringify({ name: "inbound", description: "", definition }) })) as { id: string };
  await api(w, `/api/pipelines/${p.id}/deploy`, { method: "POST" });
}

async function count(w: RunningWorker, status: string): Promise<number> {
  return ((await api(w, `/api/hl7/messages?status=${status}&limit=1`)) as { total_count: number }).total_count;
}

/** Posts messages in bridge-sized batches, then waits until none is waiting; messages/s end to end. */
async function endToEnd(w: RunningWorker, label: string, make: (i: number) => string, offset: number) {
  const t0 = performance.now();
  for (let i = 0; i < MESSAGES; i += BATCH) {
    const messages = Array.from({ length: Math.min(BATCH, MESSAGES - i) }, (_, k) => ({ id: crypto.randomUUID(), raw: make(offset + i + k) }));
    const body = (await api(w, "/api/v1/hl7/messages", { method: "POST", body: JSON.stringify({ messages }) })) as { results: { status: string }[] };
    // "duplicate" answers a resend after a restart: the first copy was stored.
    if (body.results.some((r) => r.status === "rejected")) throw new Error(`${label}: a message was rejected`);
  }
  const accepted = performance.now();
  while ((await count(w, "received")) > 0) {
    if (performance.now() - t0 > DEADLINE_MS) throw new Error(`${label}: not processed within the deadline`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const done = performance.now();
  const failed = await count(w, "failed");
  return { label, ingestRate: MESSAGES / ((accepted - t0) / 1000), rate: MESSAGES / ((done - t0) / 1000), failed };
}

/** The same messages, converted here, posted straight to the store as transactions (same sender parallelism). */
async function directTransactions(w: RunningWorker, make: (i: number) => string, offset: number) {
  const bundles = Array.from({ length: MESSAGES }, (_, i) => convertToFhir(make(offset + i)));
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, s) => {
      for (let i = s; i < bundles.length; i += SENDERS) {
        await api(w, `/fhir/r4/${w.orgId}`, { method: "POST", body: JSON.stringify(bundles[i]), headers: { "content-type": "application/fhir+json" } });
      }
    }),
  );
  return MESSAGES / ((performance.now() - t0) / 1000);
}

/**
 * Runs `work` and returns its result with workerd's CPU time per message meanwhile, and how busy
 * its busiest thread was (near 100%: that thread is the limit; well below: something waits).
 */
async function withCpu<T>(pids: number[], work: () => Promise<T>): Promise<[T, number, number]> {
  const before = cpuMs(pids);
  const threads = threadCpuMs(pids);
  const t0 = performance.now();
  const result = await work();
  const wall = performance.now() - t0;
  const busiest = Math.max(...[...threadCpuMs(pids)].map(([t, ms]) => ms - (threads.get(t) ?? 0)));
  return [result, (cpuMs(pids) - before) / MESSAGES, busiest / wall];
}

const inspectorPort = PROFILE_DIR ? await freePort() : undefined;
const worker = await startWorker({ limits: { apiPerMinute: 10_000_000 }, ...(inspectorPort ? { inspectorPort } : {}) });
try {
  const pids = worker.pid ? workerdPids(worker.pid) : [];
  await deployPipeline(worker);
  console.log(`wrangler dev --local, ${MESSAGES} messages per run, ${SENDERS} senders, batches of ${BATCH}`);
  for (const [label, make, base] of [
    ["ADT^A01", adt, 0],
    ["ORU^R01", oru, 0],
  ] as const) {
    const profiler = inspectorPort ? await startProfiler(inspectorPort) : undefined;
    const [e2e, e2eCpu, e2eBusy] = await withCpu(pids, () => endToEnd(worker, label, make, base));
    if (profiler && PROFILE_DIR) {
      const profile = await profiler.stop();
      profiler.close();
      mkdirSync(PROFILE_DIR, { recursive: true });
      const file = path.join(PROFILE_DIR, `${label.replace("^", "-")}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      console.log(`${label} end to end, ${file}:\n${summarize(profile)}`);
    }
    const [direct, directCpu, directBusy] = await withCpu(pids, () => directTransactions(worker, make, base + 100_000));
    allMeasured([
      { label: `${label} ingest msg/s`, value: e2e.ingestRate },
      { label: `${label} end-to-end msg/s`, value: e2e.rate, errors: e2e.failed },
      { label: `${label} direct transactions msg/s`, value: direct },
      // CPU figures need workerd's pids; without them they read 0 and are not printed as results.
      ...(pids.length ? [{ label: `${label} workerd CPU ms per message`, value: e2eCpu }, { label: `${label} workerd CPU ms per direct message`, value: directCpu }] : []),
    ]);
    console.log(
      `${label}: ingest ${e2e.ingestRate.toFixed(0)} msg/s (stored + ACK), end to end ${e2e.rate.toFixed(1)} msg/s (converted + stored), ` +
        `direct transactions ${direct.toFixed(1)} msg/s, ratio e2e/direct ${(e2e.rate / direct).toFixed(2)}x, failed ${e2e.failed}; ` +
        `workerd CPU per message ${e2eCpu.toFixed(1)} ms end to end, ${directCpu.toFixed(1)} ms direct; ` +
        `busiest workerd thread ${(e2eBusy * 100).toFixed(0)}% busy end to end, ${(directBusy * 100).toFixed(0)}% direct`,
    );
  }
} finally {
  await worker.stop();
}
