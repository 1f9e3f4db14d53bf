// FHIR over HTTP at the issue's (#23) scale: ~15,000 generated resources loaded through
// transaction Bundles, then, per operation at 16 connections (read by id, the issue's four
// searches and more search kinds, create, update), req/s and p50/p99 beside the floor measured in
// the same run and runtime (a trivial route doing one D1 point read, no app) in alternating rounds
// (--rounds, default 2: each operation's round right after a floor round as long), the workerd CPU ms
// per request, D1 rows read and written per request (meta.rows_read / rows_written, metered on a
// separate pass) and OrgGate calls per 100 requests (bench/fhir/metered-worker.ts counts them).
// With --medplum, the same workload against Medplum's FHIR router on loopback, as ratios.
// --only <regexp>: the operations whose label matches (and the floor); --profile <dir>: after each
// operation's timed run, a V8 CPU profile of the Worker's isolate over a pass of its own (the timed
// figures are taken with the profiler off), written to <dir> and summarized.
// --audits stored|acked|unsent attributes the audits' cost (bench/fhir/metered-worker.ts): the real
// consumer (default), deliveries acknowledged without storing, or no queue send at all.
// Usage: npm run bench -- fhir-http [--seconds 10] [--rounds 2] [--patients 150] [--runtime miniflare|wrangler-dev] [--medplum] [--only <regexp>] [--profile <dir>] [--audits stored|acked|unsent]
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Bundle, type Operation, loadOrganization, operationsFor } from "./fhir/http-workload";
import { type LoadResult, combine, load, median, throughput } from "./lib/load";
import { NothingMeasured, allMeasured } from "./lib/measured";
import { numberOption, option } from "./lib/options";
import { cpuMs, workerdPids } from "./lib/rss";
import { freePort, startWorker } from "./lib/worker";
import { startProfiler, summarize } from "./lib/profile";
import { startMedplum } from "./fhir/medplum-peer";
import { patientBundles } from "./fhir/generate";

const seconds = numberOption("seconds", 10);
const patients = numberOption("patients", 150, { integer: true });
const meterRequests = numberOption("meter-requests", 60, { integer: true });
const rounds = numberOption("rounds", 2, { integer: true });
const runtime = (option("runtime") ?? "miniflare") as "miniflare" | "wrangler-dev";
const withMedplum = process.argv.includes("--medplum");
const only = option("only") === undefined ? undefined : new RegExp(option("only")!);
const profileDir = option("profile");
const audits = option("audits") ?? "stored";
/** The Worker's inspector target (wrangler.toml's name). */
const PROFILE_TARGET = "clinical-data-integration";
const CONCURRENCY = 16;

if (!["miniflare", "wrangler-dev"].includes(runtime)) throw new Error(`--runtime must be miniflare or wrangler-dev, not ${runtime}`);

interface Meter {
  requests: number;
  gateCalls: number;
  queueSends: number;
  queuedMessages: number;
  d1Calls: number;
  roundTrips: number;
  rowsRead: number;
  rowsWritten: number;
  auditDeliveries: number;
  auditMessages: number;
  auditMaxMs: number;
  auditBatchMaxMs: number;
  auditBatchMaxSqlMs: number;
  auditRowsWritten: number;
}

interface Row extends LoadResult {
  /** The median over the rounds of this operation's req/s over the floor's in the round before it. */
  ratio: number;
  /** The floor's req/s over this operation's rounds. */
  floorRps: number;
  cpuMsPerRequest: number;
  gatePer100: number;
  /** Audit queue sends (send or sendBatch calls) per request. */
  sendsPerRequest: number;
  rowsReadPerRequest?: number;
  rowsWrittenPerRequest?: number;
  d1CallsPerRequest?: number;
  roundTripsPerRequest?: number;
  /** Audit queue deliveries during the timed run: messages per delivery, the longest delivery's ms. */
  auditPerDelivery: number;
  auditMaxMs: number;
  /** The consumer's longest D1 batch (ms) and D1 rows it wrote per AuditEvent. */
  auditBatchMaxMs: number;
  /** D1's execution time (meta.duration) of its longest batch: the writer held, without the wait. */
  auditBatchMaxSqlMs: number;
  auditRowsPerEvent: number;
}

const bundles = (): Bundle[] => [...patientBundles({ patients, encountersPerPatient: 5, observationsPerPatient: 80, conditionsPerPatient: 8, medicationsPerPatient: 7, seed: 42 })];

const inspectorPort = profileDir ? await freePort() : undefined;
const worker = await startWorker({
  runtime,
  ...(inspectorPort ? { inspectorPort } : {}),
  logLevel: (option("log-level") ?? "none") as "none" | "error",
  entry: path.join(import.meta.dirname, "fhir/metered-worker.ts"),
  vars: { LIMIT_API_PER_MINUTE: "100000000", LIMIT_PUBLIC_PER_MINUTE: "100000000" },
});
const medplum = withMedplum ? await startMedplum() : undefined;
try {
  const meter = async (on?: boolean): Promise<Meter> => {
    const res = await fetch(`${worker.url}/api/__bench/meter${on === undefined ? "" : `?on=${on ? 1 : 0}`}`, { method: on === undefined ? "GET" : "POST" });
    if (!res.ok) throw new NothingMeasured(`the metered Worker answered ${res.status} at /api/__bench/meter`);
    return (await res.json()) as Meter;
  };
  const pids = workerdPids(worker.pid!);
  if (!pids.length) throw new NothingMeasured("no workerd process found in the runtime's process group");
  const base = `${worker.url}/fhir/r4/${worker.orgId}`;
  const t0 = performance.now();
  const data = await loadOrganization(base, worker.headers, bundles());
  const loadSeconds = (performance.now() - t0) / 1000;
  console.log(`loaded ${data.resources} resources in ${loadSeconds.toFixed(1)} s (${(data.resources / loadSeconds).toFixed(0)} resources/s through transactions)`);
  if (audits !== "stored") {
    const res = await fetch(`${worker.url}/api/__bench/audits?mode=${encodeURIComponent(audits)}`, { method: "POST" });
    if (!res.ok) throw new Error(`--audits ${audits}: ${await res.text()}`);
    console.log(`audits: ${audits} (attribution only: ${audits === "acked" ? "deliveries acknowledged without storing" : "no queue send"})`);
  }
  const floor: Operation = { label: "floor: 1 D1 point read", request: () => fetch(`${worker.url}/api/__bench/floor?id=${worker.orgId}`), kind: "floor" };
  const ops = [floor, ...operationsFor(base, worker.headers, data).filter((op) => !only || only.test(op.label))];

  // Each operation runs in `rounds` rounds, each right after a round of the floor of the same
  // length, and its ratio is the median of the rounds' ratios: this machine's speed drifts from
  // minute to minute (the floor moved between 130 and 940 req/s across runs), and a floor measured
  // once at the start would carry that drift into every later ratio. The audit queue's consumer
  // stores a read's audit up to a second later, so an operation's round starts after a second of
  // the operation unmeasured (the consumer then runs beside it as in a steady state), and the floor's
  // round only once the queue has delivered every audit sent before it (none runs beside the floor).
  const delivered = async () => {
    const until = performance.now() + 15_000;
    for (let m = await meter(); m.auditMessages < m.queuedMessages; m = await meter()) {
      if (performance.now() > until) {
        console.warn(`the audit queue delivered ${m.auditMessages} of ${m.queuedMessages} messages within 15 s; going on`);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const timed = async (op: Operation, secs: number) => {
    const cpu0 = cpuMs(pids);
    const r = await load(op.label, op.request, loadOptions(op, secs));
    return { r, cpu: cpuMs(pids) - cpu0 };
  };
  await load("warm-up", floor.request, loadOptions(floor, Math.min(2, seconds)));
  const floorRounds: LoadResult[] = [];
  let floorCpu = 0;
  const rows: Row[] = [];
  for (const op of ops.slice(1)) {
    await load("warm-up", op.request, loadOptions(op, Math.min(2, seconds)));
    await meter(false);
    const mine: { op: LoadResult; floor: LoadResult }[] = [];
    let cpu = 0;
    for (let i = 0; i < rounds; i++) {
      await delivered();
      const f = await timed(floor, seconds / rounds);
      floorCpu += f.cpu;
      await load("warm-up", op.request, loadOptions(op, 1));
      const o = await timed(op, seconds / rounds);
      cpu += o.cpu;
      mine.push({ op: o.r, floor: f.r });
    }
    floorRounds.push(...mine.map((m) => m.floor));
    const gate = await meter();
    // The metering pass: a few requests with D1 meta read for every statement.
    await meter(true);
    for (let i = 0; i < meterRequests; i++) {
      const res = await op.request();
      await res.arrayBuffer();
    }
    const m = await meter(false);
    if (inspectorPort && profileDir) await profile(op, loadOptions(op, seconds), inspectorPort, profileDir);
    const r = combine(op.label, mine.map((x) => x.op));
    const row: Row = { ...r, ratio: median(mine.map((x) => x.op.rps / x.floor.rps)), floorRps: combine(floor.label, mine.map((x) => x.floor)).rps, cpuMsPerRequest: cpu / r.requests, gatePer100: (100 * gate.gateCalls) / Math.max(1, gate.requests), sendsPerRequest: gate.queueSends / Math.max(1, gate.requests), auditPerDelivery: gate.auditMessages / Math.max(1, gate.auditDeliveries), auditMaxMs: gate.auditMaxMs, auditBatchMaxMs: gate.auditBatchMaxMs, auditBatchMaxSqlMs: gate.auditBatchMaxSqlMs, auditRowsPerEvent: gate.auditRowsWritten / Math.max(1, gate.auditMessages) };
    row.rowsReadPerRequest = m.rowsRead / m.requests;
    row.rowsWrittenPerRequest = m.rowsWritten / m.requests;
    row.d1CallsPerRequest = m.d1Calls / m.requests;
    row.roundTripsPerRequest = m.roundTrips / m.requests;
    rows.push(row);
  }
  const floorAll = combine(floor.label, floorRounds);
  rows.unshift({ ...floorAll, ratio: 1, floorRps: floorAll.rps, cpuMsPerRequest: floorCpu / Math.max(1, floorAll.requests), gatePer100: 0, sendsPerRequest: 0, auditPerDelivery: 0, auditMaxMs: 0, auditBatchMaxMs: 0, auditBatchMaxSqlMs: 0, auditRowsPerEvent: 0 });
  allMeasured(rows.map(throughput));
  allMeasured(rows.filter((r) => r.rowsReadPerRequest !== undefined).map((r) => ({ label: `${r.label} D1 statements metered`, value: r.d1CallsPerRequest ?? 0 })));

  console.log(`\nfhir-http on ${runtime === "miniflare" ? "npm start's runtime (the bundle on Miniflare directly)" : "wrangler dev"}: ${CONCURRENCY} connections, ${seconds} s per operation in ${rounds} rounds, each after a floor round as long, ${data.resources} resources`);
  console.log(`${"operation".padEnd(44)} ${"req/s".padStart(6)} ${"x floor".padStart(7)} ${"floor/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"CPU ms/req".padStart(10)} ${"rows read".padStart(9)} ${"D1 writes".padStart(9)} ${"D1 stmts".padStart(8)} ${"D1 trips".padStart(8)} ${"gate/100".padStart(8)} ${"q sends".padStart(7)} ${"aud/dlv".padStart(7)} ${"aud ms".padStart(6)} ${"batch ms".padStart(8)} ${"sql ms".padStart(6)} ${"aud rows".padStart(8)}`);
  for (const r of rows) {
    const cell = (v: number | undefined, digits: number, width: number) => (v === undefined ? "-" : v.toFixed(digits)).padStart(width);
    console.log(`${r.label.padEnd(44)} ${cell(r.rps, 0, 6)} ${cell(r.ratio, 2, 7)} ${cell(r.floorRps, 0, 7)} ${cell(r.p50, 1, 7)} ${cell(r.p99, 1, 7)} ${cell(r.cpuMsPerRequest, 2, 10)} ${cell(r.rowsReadPerRequest, 1, 9)} ${cell(r.rowsWrittenPerRequest, 1, 9)} ${cell(r.d1CallsPerRequest, 1, 8)} ${cell(r.roundTripsPerRequest, 1, 8)} ${cell(r.gatePer100, 1, 8)} ${cell(r.sendsPerRequest, 2, 7)} ${cell(r.auditPerDelivery || undefined, 0, 7)} ${cell(r.auditMaxMs || undefined, 0, 6)} ${cell(r.auditBatchMaxMs || undefined, 0, 8)} ${cell(r.auditBatchMaxSqlMs || undefined, 1, 6)} ${cell(r.auditRowsPerEvent || undefined, 1, 8)}`);
  }
  console.log("(x floor: the median over the rounds of req/s over the floor's in the round before; floor/s: the floor's req/s in this operation's rounds (the floor row: all rounds); CPU ms/req: the runtime's workerd processes over the operation's rounds (the audit consumer beside them); rows read / D1 writes: rows per request from D1's meta over a metered pass; D1 stmts / trips: statements, and round trips (a batch is one), per request; gate/100: OrgGate calls per 100 requests at steady state; q sends: audit queue sends per request; aud/dlv, aud ms: AuditEvents per audit queue delivery during the timed run and the longest delivery's wall ms; batch ms: its longest D1 batch, wall ms; sql ms: D1's execution time of its longest batch (meta.duration: the writer held); aud rows: D1 rows the consumer wrote per AuditEvent)");
  printTargets(rows, ops);

  if (medplum) {
    const mdata = await loadOrganization(medplum.base, {}, bundles());
    // Medplum's MemoryRepository has no indexes: a search over Observation, Encounter or Condition
    // reads every one of them in JavaScript (seconds per request at this size), which says nothing
    // of Medplum's Postgres server, so those are left out of the comparison.
    const mops = operationsFor(medplum.base, {}, mdata).filter((op) => !op.largeTypes);
    console.log(`\nMedplum ${medplum.version} FHIR router (MemoryRepository, Node ${process.versions.node}) on loopback, the same ${mdata.resources} resources, the operations an index-less store can answer:`);
    const mrows: LoadResult[] = [];
    for (const op of mops) {
      const opts = loadOptions(op, seconds);
      await load("warm-up", op.request, { ...opts, seconds: Math.min(2, seconds) });
      const cpu0 = medplum.cpuMs();
      const r = await load(op.label, op.request, opts);
      mrows.push({ ...r, cpuMsPerRequest: (medplum.cpuMs() - cpu0) / r.requests } as LoadResult & { cpuMsPerRequest: number });
    }
    allMeasured(mrows.map(throughput));
    console.log(`${"operation".padEnd(44)} ${"Medplum".padStart(8)} ${"p50 ms".padStart(7)} ${"CPU ms".padStart(7)} ${"this/Medplum".padStart(13)}`);
    for (const m of mrows) {
      const ours = rows.find((r) => r.label === m.label)!;
      console.log(`${m.label.padEnd(44)} ${m.rps.toFixed(0).padStart(8)} ${m.p50.toFixed(1).padStart(7)} ${(m as LoadResult & { cpuMsPerRequest: number }).cpuMsPerRequest.toFixed(2).padStart(7)} ${(ours.rps / m.rps).toFixed(2).padStart(12)}x`);
    }
  }
} finally {
  await medplum?.stop();
  await worker.stop();
}

/** The load generator's options for `op` over `secs` seconds (the status it answers when not 200). */
function loadOptions(op: Operation, secs: number) {
  return { concurrency: CONCURRENCY, seconds: secs, ...(op.expectStatus ? { expectStatus: op.expectStatus } : {}) };
}

/** A V8 CPU profile of the Worker's isolate over a load pass of `op` (at most 5 s), written and summarized. */
async function profile(op: Operation, opts: { concurrency: number; seconds: number; expectStatus?: number }, port: number, dir: string) {
  const profiler = await startProfiler(port, 200, PROFILE_TARGET);
  try {
    await load(`${op.label} (profiled)`, op.request, { ...opts, seconds: Math.min(5, opts.seconds) });
    const result = await profiler.stop();
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${op.label.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "")}.cpuprofile`);
    writeFileSync(file, JSON.stringify(result));
    console.log(`${op.label}, ${file}:\n${summarize(result, 20)}`);
  } finally {
    profiler.close();
  }
}

/** The issue's targets against this run's figures (reported, not enforced: a figure is not a test). */
function printTargets(rows: Row[], ops: Operation[]) {
  const lines: string[] = [];
  for (const [i, r] of rows.entries()) {
    const { kind } = ops[i]!;
    const { ratio } = r;
    const want = { read: 0.8, search: 0.5, create: 0.4, update: 0.4, floor: 0 }[kind];
    if (want) lines.push(`${ratio >= want ? "met " : "MISS"} ${r.label}: ${ratio.toFixed(2)}x floor (target >= ${want}x)`);
    if (kind !== "floor") lines.push(`${r.p99 <= 3 * r.p50 ? "met " : "MISS"} ${r.label}: p99 ${(r.p99 / r.p50).toFixed(1)}x p50 (target <= 3x)`);
    if (kind === "read" || kind === "search") lines.push(`${r.rowsWrittenPerRequest === 0 ? "met " : "MISS"} ${r.label}: ${r.rowsWrittenPerRequest} D1 rows written per request (target 0)`);
    if (kind !== "floor") lines.push(`${r.gatePer100 <= 5 ? "met " : "MISS"} ${r.label}: ${r.gatePer100.toFixed(1)} OrgGate calls per 100 requests (target <= 5)`);
  }
  console.log(`\nissue #23 targets:\n${lines.join("\n")}`);
}
