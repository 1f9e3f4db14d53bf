// MQTT end to end: mosquitto (real, loopback) → bridge (spawned, MQTT listener) → real Worker
// (wrangler dev --local) → Observations on the patient with its Device. Readings published with
// mosquitto_pub at QoS 1; the bridge SIGKILLed mid-stream and restarted, the broker restarted
// while messages wait for the bridge: every reading makes exactly one Observation. A malformed
// payload and readings naming another organization's patient or device are refused one by one
// (the bridge's error queue says why) and the readings after them go in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../bench/lib/worker";
import { type ChildBridge, spawnBridge, stopBridge } from "./support/child-bridge";
import { bridgeEnv, getJson, tempDir, waitFor } from "./support/harness";
import { MOSQUITTO_MISSING, Mosquitto, mosquittoAvailable } from "./support/mosquitto";
import { createPatient, createServiceKey, type DeviceObservation, linkMqttDevice, observationsOf } from "./support/worker-api";

if (!mosquittoAvailable) console.warn(`mqtt-e2e skipped: ${MOSQUITTO_MISSING}`);

const RUN = Date.now().toString(36);
const DELIVERY_TIMEOUT_MS = 90_000;
const BASE = Date.parse("2026-11-20T08:00:00Z");

let worker: RunningWorker | undefined;
let broker: Mosquitto | undefined;
const bridges: ChildBridge[] = [];
const dirs: { remove(): void }[] = [];
let patient = "";
let device = "";
let otherPatient = "";
let otherDevice = "";
/** A second patient of the same organization, with a gateway of its own. */
let neighbour = "";
let neighbourDevice = "";
let topic = "";
/** The bridge runs with a service key, as deployed. */
let serviceKey = "";
const bridgeData = tempDir("bridge-mqtt-e2e-");
dirs.push(bridgeData);

interface Status {
  queue_depth: number;
  error_queue_depth: number;
  counters: { received: number; duplicates: number };
}

/** A heart-rate reading in the reference's envelope, one minute apart per n. */
function heartRate(n: number, extra: Record<string, unknown> = {}): { msgId: string; payload: string } {
  const msgId = `${RUN}-hr-${n}`;
  const body = { msgId, patientRef: `Patient/${patient}`, loinc: "8867-4", value: 60 + (n % 40), ucum: "/min", ts: new Date(BASE + n * 60_000).toISOString(), tsQuality: "synced", seq: n, ...extra };
  return { msgId, payload: JSON.stringify(body) };
}

async function startBridge(): Promise<ChildBridge> {
  if (!worker || !broker) throw new Error("not started");
  const env = bridgeEnv({ ...worker, apiKey: serviceKey }, bridgeData.dir, {
    BRIDGE_LISTENERS: "mqtt",
    MQTT_URL: broker.url,
    MQTT_CLIENT_ID: `bridge-e2e-${RUN}`,
    MQTT_RECONNECT_MS: "200",
    REQUEST_TIMEOUT_MS: "20000",
    RETRY_MAX_MS: "500",
  });
  const bridge = await spawnBridge(env);
  bridges.push(bridge);
  return bridge;
}

const status = async (bridge: ChildBridge) => (await getJson<Status>(bridge.statusPort, "/status")).body;

/** Waits until every msgId has its Observation on the patient's device; fails on any reading stored twice. */
async function expectOnce(msgIds: string[], metric = "heart_rate", on = { patient, device }): Promise<DeviceObservation[]> {
  if (!worker) throw new Error("not started");
  const target = worker;
  const wanted = new Set(msgIds.map((id) => `mqtt|${on.device}|${on.device}:${id}|${metric}`));
  const observations = await waitFor(
    async () => {
      const all = await observationsOf(target, on.patient);
      return all.filter((o) => wanted.has(o.identifier)).length >= wanted.size ? all : null;
    },
    `${wanted.size} Observations`,
    DELIVERY_TIMEOUT_MS,
    500,
  );
  const counts = new Map<string, number>();
  for (const o of observations) counts.set(o.identifier, (counts.get(o.identifier) ?? 0) + 1);
  expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
  return observations.filter((o) => wanted.has(o.identifier));
}

beforeAll(async () => {
  if (!mosquittoAvailable) return;
  const brokerDir = tempDir("mosquitto-");
  dirs.push(brokerDir);
  broker = await Mosquitto.start(brokerDir.dir);
  worker = await startWorker({ otherOrgs: 1 });
  patient = await createPatient(worker, `Mqtt-${RUN}`);
  device = await linkMqttDevice(worker, patient, "Bedside gateway HR");
  const other = { ...worker, ...(worker.others[0] as NonNullable<RunningWorker["others"][0]>) };
  otherPatient = await createPatient(other, `Other-${RUN}`);
  otherDevice = await linkMqttDevice(other, otherPatient, "Other org's cuff");
  neighbour = await createPatient(worker, `Neighbour-${RUN}`);
  neighbourDevice = await linkMqttDevice(worker, neighbour, "Neighbour's bedside gateway");
  topic = `rpm/${worker.orgId}/devices/${device}/obs`;
  serviceKey = await createServiceKey(worker);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(bridges.map((b) => stopBridge(b, "SIGKILL")));
  await broker?.stop();
  if (worker) await worker.stop();
  for (const dir of dirs) dir.remove();
}, 60_000);

describe.skipIf(!mosquittoAvailable)("MQTT: mosquitto → bridge → Worker", () => {
  let bridge: ChildBridge;

  it("turns readings published with mosquitto_pub -q 1 into Observations on the patient with the Device, once per message id", async () => {
    bridge = await startBridge();
    const readings = [1, 2, 3].map((n) => heartRate(n));
    const first = readings[0] as { payload: string };
    const bp = {
      msgId: `${RUN}-bp-1`,
      patientRef: `Patient/${patient}`,
      mdc: "150020",
      components: [
        { mdc: "150021", value: 128, ucum: "mm[Hg]" },
        { mdc: "150022", value: 84, ucum: "mm[Hg]" },
      ],
      ts: new Date(BASE).toISOString(),
    };
    // The first reading twice (a gateway's resend): one Observation.
    await broker?.publish(topic, [...readings.map((r) => r.payload), first.payload, JSON.stringify(bp)]);
    const hr = await expectOnce(readings.map((r) => r.msgId));
    for (const o of hr) expect(o).toMatchObject({ device: `Device/${device}`, code: "8867-4" });
    const [pressure] = await expectOnce([bp.msgId], "blood_pressure");
    expect(pressure).toMatchObject({ device: `Device/${device}`, code: "85354-9" });
  }, 120_000);

  it("keeps two patients' readings apart when their gateways use the same message ids", async () => {
    const readings = [20, 21].map((n) => heartRate(n));
    await broker?.publish(topic, readings.map((r) => r.payload));
    const mine = await expectOnce(readings.map((r) => r.msgId));
    const theirs = readings.map((r) => JSON.stringify({ ...JSON.parse(r.payload), patientRef: `Patient/${neighbour}`, value: 150 }));
    await broker?.publish(`rpm/${worker?.orgId}/devices/${neighbourDevice}/obs`, theirs);
    const stored = await expectOnce(readings.map((r) => r.msgId), "heart_rate", { patient: neighbour, device: neighbourDevice });
    for (const o of stored) expect(o.device).toBe(`Device/${neighbourDevice}`);
    // The first patient's Observations are the same ones, on its own device.
    expect((await expectOnce(readings.map((r) => r.msgId))).map((o) => [o.id, o.device]).sort()).toEqual(mine.map((o) => [o.id, `Device/${device}`]).sort());
  }, 120_000);

  it("refuses a malformed payload and another organization's patient or device one by one, and goes on", async () => {
    if (!worker) throw new Error("not started");
    const before = await status(bridge);
    const good = [10, 11, 12].map((n) => heartRate(n));
    const foreignPatient = heartRate(13, { patientRef: `Patient/${otherPatient}` });
    const foreignDevice = heartRate(14);
    await broker?.publish(topic, [(good[0] as { payload: string }).payload, "{not json", foreignPatient.payload, (good[1] as { payload: string }).payload]);
    await broker?.publish(`rpm/${worker.orgId}/devices/${otherDevice}/obs`, [foreignDevice.payload]);
    await broker?.publish(topic, [(good[2] as { payload: string }).payload]);
    await expectOnce(good.map((r) => r.msgId));
    const errors = await waitFor(
      async () => {
        const { body } = await getJson<{ errors: { origin: string; error_code?: string; error_message?: string; errorMessage?: string }[] }>(bridge.statusPort, "/errors");
        return body.errors.length >= before.error_queue_depth + 3 ? body.errors : null;
      },
      "three entries in the error queue",
      DELIVERY_TIMEOUT_MS,
      250,
    );
    const text = JSON.stringify(errors);
    expect(text).toContain("payload is not JSON");
    expect(text).toContain("linked to another patient");
    expect(text).toContain(`no active device link ${otherDevice}`);
    // Nothing reached the other organization's patient.
    const other = { ...worker, ...(worker.others[0] as NonNullable<RunningWorker["others"][0]>) };
    expect(await observationsOf(other, otherPatient)).toEqual([]);
    const mine = (await observationsOf(worker, patient)).map((o) => o.identifier);
    expect(mine).not.toContain(`mqtt|${device}|${device}:${foreignPatient.msgId}|heart_rate`);
  }, 120_000);

  it("loses and duplicates nothing when the bridge is SIGKILLed mid-stream and restarted", async () => {
    const readings = Array.from({ length: 300 }, (_, i) => heartRate(100 + i));
    const start = (await status(bridge)).counters.received;
    const publishing = broker?.publish(topic, readings.map((r) => r.payload));
    await waitFor(async () => (await status(bridge)).counters.received >= start + 40, "40 readings received", 60_000, 10);
    await stopBridge(bridge, "SIGKILL");
    await publishing;
    bridge = await startBridge();
    await expectOnce(readings.map((r) => r.msgId));
  }, 180_000);

  it("loses nothing when the broker restarts while readings wait for the bridge, or while it is connected", async () => {
    await stopBridge(bridge, "SIGTERM");
    const waiting = Array.from({ length: 20 }, (_, i) => heartRate(500 + i));
    await broker?.publish(topic, waiting.map((r) => r.payload));
    await broker?.restart();
    bridge = await startBridge();
    await expectOnce(waiting.map((r) => r.msgId));
    await broker?.restart();
    const after = Array.from({ length: 10 }, (_, i) => heartRate(600 + i));
    // The bridge reconnects on its own (MQTT_RECONNECT_MS); its session kept the subscription.
    await waitFor(async () => {
      try {
        await broker?.publish(topic, after.map((r) => r.payload));
        return true;
      } catch {
        return false;
      }
    }, "publishing after the broker restart", 10_000, 200);
    await expectOnce(after.map((r) => r.msgId));
    const final = await status(bridge);
    expect(final.queue_depth).toBe(0);
  }, 180_000);
});
