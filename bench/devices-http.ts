// Device readings → Observations/s through a real `wrangler dev --local`: POST
// /api/v1/devices/readings (normalise, device check, one FHIR transaction per 500, time series)
// against the same Observations POSTed as a plain FHIR transaction Bundle of conditional creates
// to /fhir/r4/{org}, chunk by chunk alternately in the same run on the same server. Then, when
// Debian's mosquitto is installed, the MQTT path: readings published with mosquitto_pub -q 1 →
// the bridge (spawned, MQTT listener) → the same endpoint, readings/s from the first publish to
// the last reading settled, beside the direct POST rate of this run.
// Usage: npm run bench -- devices-http [--readings 10000] [--mqtt 5000] [--profile <dir>]
// (--profile writes a V8 CPU profile of the Worker over the comparison and prints its top functions).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reading } from "../src/features/devices/reading";
import { type ChildBridge, spawnBridge, stopBridge } from "../bridge/test/support/child-bridge";
import { bridgeEnv, getJson, tempDir, waitFor } from "../bridge/test/support/harness";
import { Mosquitto, mosquittoAvailable } from "../bridge/test/support/mosquitto";
import { allMeasured, NothingMeasured } from "./lib/measured";
import { plainBundle } from "./lib/device-bundles";
import { numberOption, option } from "./lib/options";
import { startProfiler, summarize } from "./lib/profile";
import { freePort, type RunningWorker, startWorker } from "./lib/worker";

const READINGS = numberOption("readings", 10_000, { integer: true });
const MQTT_READINGS = numberOption("mqtt", 5_000, { integer: true, zero: true });
const CHUNK = 500;
const PROFILE_DIR = option("profile");

async function api<T>(worker: RunningWorker, method: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${worker.url}${pathname}`, { method, headers: { ...worker.headers, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

async function patientWithDevice(worker: RunningWorker, name: string, platform: string) {
  const patientId = (await api<{ id: string }>(worker, "POST", `/fhir/r4/${worker.orgId}/Patient`, { resourceType: "Patient", name: [{ family: name }] })).id;
  const deviceId = (await api<{ device_id: string }>(worker, "POST", `/api/v1/patients/${patientId}/devices`, { name: `${name} watch`, platform })).device_id;
  return { patientId, deviceId, name: `${name} watch` };
}

function heartRate(p: { patientId: string; deviceId: string }, from: number, count: number, prefix: string): Reading[] {
  const start = Date.now() - 30 * 86_400_000;
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return { patientId: p.patientId, deviceId: p.deviceId, metric: "heart_rate", value: 55 + ((i * 7919) % 60), unit: "bpm", time: { at: new Date(start + i * 60_000).toISOString() }, platform: "sports_watch", sourceRecordId: `${prefix}-${i}` };
  });
}

const asApiReading = (r: Reading) => ({ patient_id: r.patientId, device_id: r.deviceId, metric: r.metric, value: r.value, unit: r.unit, time: r.time, platform: r.platform, source_record_id: r.sourceRecordId });


async function compare(worker: RunningWorker): Promise<number> {
  const a = await patientWithDevice(worker, "Ingest", "sports_watch");
  const b = await patientWithDevice(worker, "Plain", "sports_watch");
  let ingestMs = 0;
  let plainMs = 0;
  let created = 0;
  let written = 0;
  let failures = 0;
  const runIngest = async (from: number) => {
    const body = { readings: heartRate(a, from, CHUNK, "http-a").map(asApiReading) };
    const t = performance.now();
    const answer = await api<{ created: number; rejected: number }>(worker, "POST", "/api/v1/devices/readings", body);
    ingestMs += performance.now() - t;
    created += answer.created;
    failures += answer.rejected;
  };
  const runPlain = async (from: number) => {
    const bundle = plainBundle(heartRate(b, from, CHUNK, "http-b"), { id: b.deviceId, name: b.name });
    const t = performance.now();
    const answer = await api<{ entry?: { response?: { status: string } }[] }>(worker, "POST", `/fhir/r4/${worker.orgId}`, bundle);
    plainMs += performance.now() - t;
    written += (answer.entry ?? []).filter((e) => e.response?.status.startsWith("201")).length;
  };
  // A warm-up chunk each (the first request compiles the Worker), not counted.
  await api(worker, "POST", "/api/v1/devices/readings", { readings: heartRate(a, -CHUNK, CHUNK, "warm-a").map(asApiReading) });
  await api(worker, "POST", `/fhir/r4/${worker.orgId}`, plainBundle(heartRate(b, -CHUNK, CHUNK, "warm-b"), { id: b.deviceId, name: b.name }));
  const profiler = inspectorPort ? await startProfiler(inspectorPort) : undefined;
  for (let from = 0, round = 0; from < READINGS; from += CHUNK, round++) {
    for (const step of round % 2 ? [runIngest, runPlain] : [runPlain, runIngest]) await step(from);
  }
  if (profiler && PROFILE_DIR) {
    const profile = await profiler.stop();
    profiler.close();
    mkdirSync(PROFILE_DIR, { recursive: true });
    const file = path.join(PROFILE_DIR, "devices-http.cpuprofile");
    writeFileSync(file, JSON.stringify(profile));
    console.log(`both sides, ${file}:\n${summarize(profile)}`);
  }
  const [ingestRate, plainRate] = allMeasured([
    { label: "readings endpoint readings/s", value: created / (ingestMs / 1000), errors: failures },
    { label: "plain transaction resources/s", value: written / (plainMs / 1000), errors: READINGS - written },
  ] as const);
  console.log(`wrangler dev --local, ${READINGS} readings a side, ${CHUNK} per request, alternating`);
  console.log(`POST /api/v1/devices/readings:   ${ingestRate.toFixed(0)} readings → Observations/s`);
  console.log(`POST /fhir/r4/{org} transaction: ${plainRate.toFixed(0)} Observations/s (same resources and conditional creates)`);
  console.log(`ratio:                           ${(ingestRate / plainRate).toFixed(2)}× (target ≥ 0.8×)`);
  return ingestRate;
}

async function mqtt(worker: RunningWorker, directRate: number): Promise<void> {
  if (MQTT_READINGS === 0) return;
  if (!mosquittoAvailable) {
    console.log("mqtt: skipped (mosquitto and mosquitto_pub are not installed)");
    return;
  }
  const brokerDir = tempDir("bench-mosquitto-");
  const bridgeDir = tempDir("bench-bridge-");
  const broker = await Mosquitto.start(brokerDir.dir);
  let bridge: ChildBridge | undefined;
  try {
    const p = await patientWithDevice(worker, "Mqtt", "mqtt");
    bridge = await spawnBridge(bridgeEnv(worker, bridgeDir.dir, { BRIDGE_LISTENERS: "mqtt", MQTT_URL: broker.url, MQTT_CLIENT_ID: "bench-bridge", LOG_LEVEL: "warn", BATCH_MAX_MESSAGES: String(CHUNK) }));
    const statusPort = bridge.statusPort;
    const start = Date.now() - 10 * 86_400_000;
    const payloads = Array.from({ length: MQTT_READINGS }, (_, i) =>
      JSON.stringify({ msgId: `bench-mqtt-${i}`, patientRef: `Patient/${p.patientId}`, loinc: "8867-4", value: 55 + (i % 60), ucum: "/min", ts: new Date(start + i * 60_000).toISOString() }),
    );
    const t = performance.now();
    await broker.publish(`rpm/${worker.orgId}/devices/${p.deviceId}/obs`, payloads);
    const published = performance.now();
    type Status = { queue_depth: number; error_queue_depth: number; counters: { received: number; forwarded: number; rejected: number } };
    let received = 0;
    const done = await waitFor(
      async () => {
        const { body } = await getJson<Status>(statusPort, "/status");
        if (!received && body.counters.received >= MQTT_READINGS) received = performance.now();
        return body.counters.forwarded + body.counters.rejected >= MQTT_READINGS ? body : null;
      },
      `${MQTT_READINGS} readings through the bridge`,
      600_000,
      100,
    );
    const seconds = (performance.now() - t) / 1000;
    if (done.counters.rejected > 0) throw new NothingMeasured(`mqtt: ${done.counters.rejected} readings rejected`);
    const [rate] = allMeasured([{ label: "mqtt readings/s", value: MQTT_READINGS / seconds }] as const);
    const stored = ((received || performance.now()) - t) / 1000;
    console.log(`MQTT (mosquitto_pub -q 1 → bridge → Worker): ${rate.toFixed(0)} readings/s (${MQTT_READINGS} readings; published in ${((published - t) / 1000).toFixed(1)} s, all stored and acknowledged by the bridge after ${stored.toFixed(1)} s)`);
    console.log(`ratio MQTT / direct POST:        ${(rate / directRate).toFixed(2)}×`);
  } finally {
    if (bridge) await stopBridge(bridge);
    await broker.stop();
    brokerDir.remove();
    bridgeDir.remove();
  }
}

const inspectorPort = PROFILE_DIR ? await freePort() : undefined;
const worker = await startWorker({ limits: { apiPerMinute: 10_000_000 }, ...(inspectorPort ? { inspectorPort } : {}) });
try {
  const direct = await compare(worker);
  await mqtt(worker, direct);
} finally {
  await worker.stop();
}
