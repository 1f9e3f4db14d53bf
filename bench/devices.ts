// Device data benchmark (in-process, on the SQLite engine D1 runs): readings → Observations/s
// through ingestReadings (normalise, device check, one FHIR transaction per 500, time series)
// against the same Observations as plain FHIR transactions (same conditional creates), chunk
// by chunk alternately in the same run; then one patient's year of 1-minute heart rate (525,600
// readings) plus hourly SpO2 and daily steps and sleep loaded through the ingest path in large
// batches, and vitals query p50/p99 for days=7 and days=365.
// Usage: npm run bench -- devices [--compare 20000] [--hr-days 365] [--series-days 365] [--queries 100]
// A full year through the ingest path takes as long as the FHIR store needs for 525,600
// conditional creates; --hr-days shortens it, and --series-days then loads the rest of the year
// into the time series alone so the 365-day query still runs on a year of samples.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { OrgContext } from "../src/platform/org-context";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../src/features/fhir/index";
import type { Reading } from "../src/features/devices/reading";
import { insertLink } from "../src/features/devices/store/links";
import { recordSamples, type Sample } from "../src/features/devices/store/time-series";
import { ingestReadings, TRANSACTION_CHUNK } from "../src/features/devices/use-cases/ingest";
import { patientVitals } from "../src/features/devices/use-cases/vitals";
import { SqliteD1, sqliteOrgData } from "./fhir/d1-sqlite";
import { allMeasured, sampled } from "./lib/measured";
import { plainBundle } from "./lib/device-bundles";
import { numberOption } from "./lib/options";

const COMPARE = numberOption("compare", 20_000, { integer: true });
const HR_DAYS = numberOption("hr-days", 365, { integer: true });
const SERIES_DAYS = numberOption("series-days", 365, { integer: true });
const QUERIES = numberOption("queries", 100, { integer: true });
const BATCH = 5_000;

const dir = mkdtempSync(path.join(os.tmpdir(), "devices-bench-"));
const d1 = new SqliteD1(path.join(dir, "bench.sqlite"));
d1.applyMigrations(path.join(import.meta.dirname, "../migrations/data"));
const principal = { orgId: "org-bench", keyId: "key-bench", keyName: "bench", role: "service" as const, scopes: [] };
const data = sqliteOrgData(d1, principal.orgId);
// The alerts the Worker wires to readingsStored import workerd modules: this in-process figure leaves
// them out (devices-http, through wrangler dev, includes them).
const ctx = { ...data, fhir: (p: typeof principal) => fhirStoreFor(data, p, { extensions: NO_FHIR_EXTENSIONS }), readingsStored: async () => {} } as unknown as OrgContext;
const store = fhirStoreFor(data, principal, { extensions: NO_FHIR_EXTENSIONS });

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function patientWithDevice(name: string): Promise<{ patientId: string; deviceId: string }> {
  const patientId = (await store.create({ resourceType: "Patient", name: [{ family: name }] })).resource.id as string;
  const deviceId = (await store.create({ resourceType: "Device", status: "active", deviceName: [{ name: `${name} watch`, type: "user-friendly-name" }], patient: { reference: `Patient/${patientId}` } })).resource.id as string;
  await insertLink(data, { orgId: principal.orgId, deviceId, patientId, name: `${name} watch`, platform: "sports_watch", integrationId: null, platformDeviceId: null, platformUserId: null, tokensEnc: null, status: "active", lastSyncAt: null, createdAt: new Date().toISOString() });
  return { patientId, deviceId };
}

function* heartRate(patientId: string, deviceId: string, start: number, minutes: number, prefix: string): Generator<Reading> {
  for (let i = 0; i < minutes; i++) {
    yield { patientId, deviceId, metric: "heart_rate", value: 55 + ((i * 7919) % 60), unit: "bpm", time: { at: new Date(start + i * 60_000).toISOString() }, platform: "sports_watch", sourceRecordId: `${prefix}-${i}` };
  }
}

function take<T>(it: Iterator<T>, n: number): T[] {
  const out: T[] = [];
  while (out.length < n) {
    const r = it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}


async function main() {
  // 1. Ingest vs plain transactions, alternating chunk by chunk on two patients.
  const a = await patientWithDevice("Ingest");
  const b = await patientWithDevice("Plain");
  const start = Date.now() - 60 * 86_400_000;
  const ingestSource = heartRate(a.patientId, a.deviceId, start, COMPARE, "cmp-a");
  const plainSource = heartRate(b.patientId, b.deviceId, start, COMPARE, "cmp-b");
  let ingestMs = 0;
  let plainMs = 0;
  let ingested = 0;
  let written = 0;
  let failures = 0;
  // Which goes first alternates, so neither side always meets the other's warm cache.
  const runPlain = async () => {
    const plain = plainBundle(take(plainSource, TRANSACTION_CHUNK), { id: b.deviceId, name: "Plain watch" });
    const t = performance.now();
    written += (await store.batch(plain)).entry?.length ?? 0;
    plainMs += performance.now() - t;
  };
  const runIngest = async () => {
    const batch = take(ingestSource, TRANSACTION_CHUNK);
    const t = performance.now();
    const results = await ingestReadings(ctx, principal, batch);
    ingestMs += performance.now() - t;
    ingested += results.filter((r) => r.observationId && !r.duplicate).length;
    failures += results.filter((r) => r.errors).length;
  };
  for (let done = 0, round = 0; done < COMPARE; done += TRANSACTION_CHUNK, round++) {
    for (const step of round % 2 ? [runIngest, runPlain] : [runPlain, runIngest]) await step();
  }
  const [ingestRate, plainRate] = allMeasured([
    { label: "ingest readings/s", value: ingested / (ingestMs / 1000), errors: failures },
    { label: "plain transaction resources/s", value: written / (plainMs / 1000) },
  ] as const);
  console.log(`ingest:              ${ingestRate.toFixed(0)} readings → Observations/s (${ingested} readings, chunks of ${TRANSACTION_CHUNK})`);
  console.log(`plain transaction:   ${plainRate.toFixed(0)} Observations/s (same resources and conditional creates)`);
  console.log(`ratio:               ${(ingestRate / plainRate).toFixed(2)}× (target ≥ 0.8×)`);

  // 2. A year (--hr-days) of 1-minute heart rate plus other metrics for one patient, through the ingest path.
  const p = await patientWithDevice("Year");
  const yearStart = Math.floor((Date.now() - HR_DAYS * 86_400_000) / 60_000) * 60_000;
  const minutes = HR_DAYS * 1440;
  const hr = heartRate(p.patientId, p.deviceId, yearStart, minutes, "yr");
  const extra: Reading[] = [];
  for (let d = 0; d < HR_DAYS; d++) {
    const day = yearStart + d * 86_400_000;
    extra.push({ ...base(p), metric: "steps", value: 4000 + ((d * 37) % 9000), unit: "steps", time: { start: new Date(day).toISOString(), end: new Date(day + 86_400_000 - 1).toISOString() }, sourceRecordId: `steps-${d}` });
    extra.push({ ...base(p), metric: "sleep", value: 360 + ((d * 13) % 120), unit: "min", time: { start: new Date(day - 8 * 3_600_000).toISOString(), end: new Date(day - 3_600_000).toISOString() }, sourceRecordId: `sleep-${d}` });
    for (let h = 0; h < 24; h++) extra.push({ ...base(p), metric: "spo2", value: 0.94 + (((d + h) % 5) / 100), unit: "fraction", time: { at: new Date(day + h * 3_600_000).toISOString() }, sourceRecordId: `spo2-${d}-${h}` });
  }
  let loaded = 0;
  const t0 = performance.now();
  for (let batch = take(hr, BATCH); batch.length; batch = take(hr, BATCH)) {
    const results = await ingestReadings(ctx, principal, batch);
    loaded += results.filter((r) => r.observationId).length;
    if (loaded % 100_000 < BATCH) process.stdout.write(`  loaded ${loaded} of ${minutes} heart-rate readings\r`);
  }
  for (let i = 0; i < extra.length; i += BATCH) loaded += (await ingestReadings(ctx, principal, extra.slice(i, i + BATCH))).filter((r) => r.observationId).length;
  const loadSeconds = (performance.now() - t0) / 1000;
  console.log(`\nyear load:           ${loaded} readings in ${loadSeconds.toFixed(0)} s (${(loaded / loadSeconds).toFixed(0)} readings/s, batches of ${BATCH})`);

  await vitalsLatency(p.patientId, HR_DAYS, "ingest-loaded");

  // 3. When the full-path load was shorter than a year (its rate is the FHIR store's): the same
  // year written only to the time series (recordSamples, the part of ingest the query reads), so
  // the 365-day query is measured on 525,600 samples either way.
  if (SERIES_DAYS > HR_DAYS) {
    const s = await patientWithDevice("Series");
    const from = Math.floor((Date.now() - SERIES_DAYS * 86_400_000) / 60_000) * 60_000;
    const t1 = performance.now();
    for (let m = 0; m < SERIES_DAYS * 1440; m += BATCH) {
      const samples: Sample[] = [];
      for (let i = m; i < Math.min(m + BATCH, SERIES_DAYS * 1440); i++) samples.push({ patientId: s.patientId, metric: "heart_rate", t: from + i * 60_000, deviceId: s.deviceId, value: 55 + ((i * 7919) % 60) });
      await recordSamples(d1 as unknown as D1Database, principal.orgId, samples);
    }
    console.log(`series-only load:    ${SERIES_DAYS * 1440} samples in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    await vitalsLatency(s.patientId, SERIES_DAYS, "series-loaded");
  }
}

/** Vitals p50/p99 of heart rate for days=7 and the whole loaded span (at most 365). */
async function vitalsLatency(patientId: string, loadedDays: number, label: string) {
  const fhir = fhirStoreFor(data, principal, { extensions: NO_FHIR_EXTENSIONS });
  for (const days of [...new Set([7, Math.min(365, Math.max(loadedDays, 7))])]) {
    const times: number[] = [];
    let points = 0;
    let count = 0;
    let resolution = "";
    for (let i = 0; i < QUERIES; i++) {
      const t = performance.now();
      const v = await patientVitals(data, fhir, patientId, "heart_rate", days);
      times.push(performance.now() - t);
      points = v.data_points.length;
      count = v.summary.count;
      resolution = v.resolution;
    }
    sampled(`vitals days=${days}`, times);
    const target = days <= 7 ? 20 : 100;
    console.log(`vitals days=${String(days).padEnd(4)} (${label}) p50 ${pct(times, 50).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms (target p50 ≤ ${target} ms); ${count} samples → ${points} ${resolution} points`);
  }
}

const base = (p: { patientId: string; deviceId: string }) => ({ patientId: p.patientId, deviceId: p.deviceId, platform: "sports_watch" });

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
