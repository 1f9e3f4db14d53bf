// Bulk Data export throughput and workerd memory through `wrangler dev --local`, on the
// generated organization (bench/fhir/generate.ts: 1,000 patients ≈ 101k resources):
//  1. loads the org through HTTP transaction Bundles (a few concurrent), half then all;
//  2. after each half, a system-level $export: kick-off → poll status → manifest, timed to
//     the 200, with workerd RSS sampled every 100 ms; the full export's files are downloaded
//     and their line counts checked against the manifest;
//  3. baseline: the same resources read as a client without bulk export would, FHIR search
//     per type with _count=1000 following Bundle.link next, with its own RSS peak.
// Usage: npx tsx bench/bulk-export.ts [--patients 1000] [--concurrency 4] [--repeat 1] [--state DIR]
//    or: npm run bench -- bulk-export
// --repeat N exports the full org N times (the summary reads the median run); --state DIR keeps
// the loaded org in DIR, and a later run with the same DIR and --patients skips loading.
// Loading 1,000 patients takes ~5 min here (2 cores); --patients trades size for time.
// wrangler dev reloads the Worker when a source file changes, which breaks a run: if others
// are editing the checkout, run from a snapshot (git archive HEAD + a node_modules symlink).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { EXPORTABLE_TYPES } from "../src/features/export/exportable";
import { DEFAULTS, patientBundles } from "./fhir/generate";
import { allMeasured } from "./lib/measured";
import { numberOption, option } from "./lib/options";
import { mib, type RssWindow, sampleRss, workerdPids } from "./lib/rss";
import { type RunningWorker, startWorker } from "./lib/worker";

const patients = numberOption("patients", DEFAULTS.patients, { integer: true });
const concurrency = numberOption("concurrency", 4, { integer: true });
const repeat = numberOption("repeat", 1, { integer: true });
const stateDir = option("state");
const HARD_TIMEOUT_MS = 15 * 60_000;
/** Status polls follow Retry-After but never wait longer than this (it bounds the timing error). */
const MAX_POLL_MS = 50;

interface BundleLike {
  resourceType: string;
  type?: string;
  entry?: { resource?: { resourceType?: string }; response?: { status?: string } }[];
  link?: { relation: string; url: string }[];
}
interface Manifest {
  output: { type: string; url: string; count: number }[];
  error: { type: string; url: string; count: number }[];
}
interface ExportRun {
  label: string;
  resources: number;
  files: number;
  seconds: number;
  mem: RssWindow;
  /** (seconds since kick-off, resources written) from X-Progress while running. */
  progress: [number, number][];
  manifest: Manifest;
}

let worker: RunningWorker | undefined;
/** Transactions resent because wrangler dev restarted the Worker mid-request. */
let restarts = 0;
const hardTimeout = setTimeout(() => {
  console.error(`bulk-export: hard timeout after ${HARD_TIMEOUT_MS / 60_000} min`);
  void (worker?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
}, HARD_TIMEOUT_MS);
process.once("SIGINT", () => void (worker?.stop() ?? Promise.resolve()).finally(() => process.exit(130)));

const rate = (n: number, s: number) => `${Math.round(n / s).toLocaleString("en-US")} resources/s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POSTs `count` transaction Bundles from `bundles`, `concurrency` at a time; returns resources created. */
async function loadBundles(w: RunningWorker, bundles: Iterator<BundleLike>, count: number): Promise<{ resources: number; seconds: number }> {
  let sent = 0;
  let resources = 0;
  const t0 = performance.now();
  const client = async () => {
    for (;;) {
      if (sent >= count) return;
      const next = bundles.next();
      if (next.done) return;
      sent++;
      const post = () =>
        fetch(`${w.url}/fhir/r4/${w.orgId}`, {
          method: "POST",
          headers: { ...w.headers, "content-type": "application/fhir+json" },
          body: JSON.stringify(next.value),
        });
      let res = await post();
      let text = await res.text();
      // wrangler dev sometimes restarts the Worker under this load (and on any source change):
      // the transaction is atomic, so it either committed or not; resend once and let the
      // manifest-vs-loaded check below show any duplicate.
      if (text.includes("restarted mid-request")) {
        restarts++;
        await sleep(2000);
        res = await post();
        text = await res.text();
      }
      const body = JSON.parse(text) as BundleLike;
      if (res.status !== 200 || body.type !== "transaction-response") throw new Error(`transaction answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      resources += body.entry?.length ?? 0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { resources, seconds: (performance.now() - t0) / 1000 };
}

/** Kick-off → status polling → manifest of one system-level export, with workerd RSS sampled throughout. */
async function runExport(w: RunningWorker, pids: number[], label: string): Promise<ExportRun> {
  const auth = w.headers;
  const rss = sampleRss(pids);
  const t0 = performance.now();
  const kick = await fetch(`${w.url}/fhir/r4/${w.orgId}/$export`, { headers: { ...auth, accept: "application/fhir+json", prefer: "respond-async" } });
  const status = kick.headers.get("content-location");
  const kickBody = await kick.text();
  if (kick.status !== 202 || !status) throw new Error(`kick-off answered ${kick.status}: ${kickBody.slice(0, 300)}`);
  const progress: [number, number][] = [];
  for (;;) {
    const res = await fetch(status, { headers: auth });
    if (res.status === 200) {
      const manifest = (await res.json()) as Manifest;
      const seconds = (performance.now() - t0) / 1000;
      const mem = rss.stop();
      const resources = manifest.output.reduce((s, o) => s + o.count, 0);
      return { label, resources, files: manifest.output.length, seconds, mem, progress, manifest };
    }
    const text = await res.text();
    if (res.status !== 202) throw new Error(`status answered ${res.status}: ${text.slice(0, 300)}`);
    const written = /\((\d+) resources written\)/.exec(res.headers.get("x-progress") ?? "")?.[1];
    if (written) progress.push([(performance.now() - t0) / 1000, Number(written)]);
    const retryAfter = Number(res.headers.get("retry-after") ?? 1) * 1000;
    await sleep(Math.min(Number.isFinite(retryAfter) ? retryAfter : MAX_POLL_MS, MAX_POLL_MS));
  }
}

/** Downloads every file of a manifest (gzip on the wire) and counts its NDJSON lines. */
async function downloadAll(w: RunningWorker, manifest: Manifest): Promise<{ ok: boolean; lines: number; wireBytes: number; seconds: number; mismatches: string[] }> {
  const t0 = performance.now();
  let lines = 0;
  let wireBytes = 0;
  const mismatches: string[] = [];
  for (const file of manifest.output) {
    const res = await fetch(file.url, { headers: { ...w.headers, "accept-encoding": "gzip" } });
    if (res.status !== 200) throw new Error(`download ${file.url} answered ${res.status}`);
    let bytes = new Uint8Array(await res.arrayBuffer());
    wireBytes += Number(res.headers.get("content-length") ?? bytes.byteLength);
    // Node's fetch decodes Content-Encoding: gzip itself; gunzip only if it handed us the raw stream.
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = new Uint8Array(gunzipSync(bytes));
    let n = 0;
    for (const b of bytes) if (b === 0x0a) n++;
    lines += n;
    if (n !== file.count) mismatches.push(`${file.url.split("/").pop()}: ${n} lines, manifest says ${file.count}`);
  }
  return { ok: mismatches.length === 0, lines, wireBytes, seconds: (performance.now() - t0) / 1000, mismatches };
}

/** Baseline: every exportable type read by FHIR search, _count=1000, following next links. */
async function searchAll(w: RunningWorker, pids: number[]): Promise<{ resources: number; pages: number; seconds: number; mem: RssWindow }> {
  const rss = sampleRss(pids);
  const t0 = performance.now();
  let resources = 0;
  let pages = 0;
  for (const type of EXPORTABLE_TYPES) {
    let url: string | undefined = `${w.url}/fhir/r4/${w.orgId}/${type}?_count=1000`;
    while (url) {
      const res = await fetch(url, { headers: w.headers });
      const bundle = (await res.json()) as BundleLike;
      if (res.status !== 200) throw new Error(`search ${url} answered ${res.status}: ${JSON.stringify(bundle).slice(0, 300)}`);
      pages++;
      resources += (bundle.entry ?? []).filter((e) => e.resource?.resourceType === type).length;
      const next = bundle.link?.find((l) => l.relation === "next")?.url;
      url = next ? new URL(next, w.url).href : undefined;
    }
  }
  return { resources, pages, seconds: (performance.now() - t0) / 1000, mem: rss.stop() };
}

function describeExport(run: ExportRun): string {
  return `${run.label.padEnd(24)} ${run.resources.toLocaleString("en-US").padStart(8)} resources in ${run.seconds.toFixed(2)} s = ${rate(run.resources, run.seconds)} (${run.files} files); workerd RSS ${mib(run.mem.start)} before, peak ${mib(run.mem.peak)}, delta ${mib(run.mem.peak - run.mem.start)}`;
}

try {
  worker = await startWorker({ limits: { apiPerMinute: 10_000_000 }, ...(stateDir ? { stateDir } : {}) });
  const w = worker;
  const pids = w.pid ? workerdPids(w.pid) : [];
  if (!pids.length) console.warn("bulk-export: no workerd process found in wrangler's process group; RSS figures will read 0");
  const marker = stateDir ? path.join(stateDir, `bulk-export-${patients}-patients.loaded`) : undefined;
  let exportHalf: ExportRun | undefined;
  let loaded: number;
  let loadRate: number | undefined;
  if (marker && existsSync(marker)) {
    loaded = Number(readFileSync(marker, "utf8"));
    console.log(`wrangler dev --local, reusing ${stateDir}: ${patients} patients, ${loaded} resources already loaded; workerd pids ${pids.join(",")}`);
  } else {
    const bundles = patientBundles({ ...DEFAULTS, patients }) as Iterator<BundleLike>;
    const half = Math.floor(patients / 2);
    console.log(`wrangler dev --local, ${patients} patients (${half} + ${patients - half}), ${concurrency} concurrent transactions, workerd pids ${pids.join(",")}`);
    const load1 = await loadBundles(w, bundles, half);
    console.log(`load 1: ${load1.resources} resources in ${load1.seconds.toFixed(1)} s = ${rate(load1.resources, load1.seconds)}`);
    exportHalf = await runExport(w, pids, "export (half org)");
    console.log(describeExport(exportHalf));
    const load2 = await loadBundles(w, bundles, patients - half);
    console.log(`load 2: ${load2.resources} resources in ${load2.seconds.toFixed(1)} s = ${rate(load2.resources, load2.seconds)}`);
    loaded = load1.resources + load2.resources;
    loadRate = loaded / (load1.seconds + load2.seconds);
    if (marker) writeFileSync(marker, String(loaded));
  }
  const fullRuns: ExportRun[] = [];
  for (let i = 1; i <= repeat; i++) {
    const run = await runExport(w, pids, repeat > 1 ? `export (full org) #${i}` : "export (full org)");
    console.log(describeExport(run));
    fullRuns.push(run);
  }
  const exportFull = [...fullRuns].sort((a, b) => a.seconds - b.seconds)[Math.floor((fullRuns.length - 1) / 2)]!;
  console.log(`  progress (s, written): ${exportFull.progress.map(([t, n]) => `${t.toFixed(1)}:${n}`).join(" ")}`);
  const dl = await downloadAll(w, exportFull.manifest);
  console.log(
    `check: ${exportFull.files} files downloaded in ${dl.seconds.toFixed(1)} s (${mib(dl.wireBytes)} on the wire), ${dl.lines} lines vs manifest ${exportFull.resources} vs loaded ${loaded}: ${dl.ok && dl.lines === loaded ? "OK" : "MISMATCH"}`,
  );
  for (const m of dl.mismatches) console.log(`  ${m}`);

  const base = await searchAll(w, pids);
  console.log(
    `baseline (search paging)  ${base.resources.toLocaleString("en-US").padStart(8)} resources in ${base.seconds.toFixed(2)} s = ${rate(base.resources, base.seconds)} (${base.pages} pages); workerd RSS ${mib(base.mem.start)} before, peak ${mib(base.mem.peak)}, delta ${mib(base.mem.peak - base.mem.start)}`,
  );

  const downloadErrors = dl.mismatches.length + (dl.lines === loaded ? 0 : 1);
  const [exportRps, baseRps] = allMeasured([
    { label: "export resources/s", value: exportFull.resources / exportFull.seconds, errors: downloadErrors },
    { label: "search paging resources/s", value: base.resources / base.seconds },
  ]);
  console.log("\n--- summary (same run; 2 shared cores, so read the ratios) ---");
  if (loadRate) console.log(`load via transactions      ${rate(loadRate, 1)}`);
  console.log(
    `export, full org           ${rate(exportFull.resources, exportFull.seconds)}${repeat > 1 ? ` (median of ${repeat}: ${fullRuns.map((r) => Math.round(r.resources / r.seconds)).join(", ")})` : ""} (target >= 50,000: ${exportRps >= 50_000 ? "met" : "missed"})`,
  );
  if (exportHalf) console.log(`export, half org           ${rate(exportHalf.resources, exportHalf.seconds)}`);
  console.log(`baseline search paging     ${rate(base.resources, base.seconds)}`);
  console.log(`ratio export/baseline      ${(exportRps / baseRps).toFixed(2)}x${loadRate ? `    export/load ${(exportRps / loadRate).toFixed(2)}x` : ""}`);
  const delta = (r: ExportRun) => mib(r.mem.peak - r.mem.start);
  console.log(
    `workerd peak RSS delta     ${exportHalf ? `export half ${delta(exportHalf)}, ` : ""}export full ${fullRuns.map(delta).join("/")}, search baseline ${mib(base.mem.peak - base.mem.start)}`,
  );
  console.log(`workerd peak RSS           ${exportHalf ? `export half ${mib(exportHalf.mem.peak)}, ` : ""}export full ${mib(exportFull.mem.peak)}, search baseline ${mib(base.mem.peak)}`);
  console.log(`worker restarts in loading ${restarts}`);
  console.log(`download check             ${dl.ok && dl.lines === loaded ? "OK" : "MISMATCH"} (${dl.lines} lines)`);
} finally {
  clearTimeout(hardTimeout);
  await worker?.stop();
}
