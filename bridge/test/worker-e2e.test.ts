// Bridge → real Worker (wrangler dev --local): ADT^A01 over MLLP becomes FHIR Patients through a
// deployed pipeline, a resent MSH-10 is stored once, and messages ACKed while the Worker is down arrive.
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../bench/lib/worker";
import { type ChildBridge, spawnBridge, stopBridge } from "./support/child-bridge";
import { fixture, withHeader } from "./support/fixtures";
import { bridgeEnv, getJson, tempDir, waitFor } from "./support/harness";
import { MllpClient, msa } from "./support/mllp-client";
import { isUp, restartWorker, stopProcessGroup } from "./support/real-worker";
import { deployAdtToFhir, messageDetail, messagesWithControlId, patientsWithIdentifier } from "./support/worker-api";

const RUN = Date.now().toString(36).toUpperCase();
const APP = "BRIDGE-E2E";
const FACILITY = `RUN-${RUN}`;
const SENDER = `${APP}|${FACILITY}`;
const SAMPLES = [fixture("ADT-A01-01.hl7"), fixture("ADT01-28.hl7")];

interface Adt {
  text: string;
  controlId: string;
  patientId: string;
}

/** A sample ADT^A01 with this run's sender, its own MSH-10 and its own patient (PID-3). */
function adt(n: number): Adt {
  const controlId = `E2E-${RUN}-${n}`;
  const patientId = `PAT-${RUN}-${n}`;
  const sample = withHeader(SAMPLES[n % SAMPLES.length] ?? "", APP, FACILITY, controlId);
  const text = sample
    .split("\r")
    .map((segment) => (segment.startsWith("PID|") ? segment.replace("PATID1234^", `${patientId}^`) : segment))
    .join("\r");
  if (!text.includes(patientId)) throw new Error("the sample's PID-3 no longer holds PATID1234");
  return { text, controlId, patientId };
}

// Wrangler answers in tens of ms but converting and storing runs in a Durable Object alarm.
const POLL_MS = 250;
const DELIVERY_TIMEOUT_MS = 45_000;

let worker: RunningWorker | undefined;
/** Set once the first wrangler was stopped by the test: its stop() would then wait forever. */
let workerStopped = false;
let restarted: ChildProcess | undefined;
const bridges: ChildBridge[] = [];
const clients: MllpClient[] = [];
const dirs: { remove(): void }[] = [];

async function startBridge(target: RunningWorker): Promise<ChildBridge> {
  const data = tempDir("bridge-e2e-");
  dirs.push(data);
  // The first request to a freshly started wrangler compiles the Worker: allow it time.
  const bridge = await spawnBridge(bridgeEnv(target, data.dir, { REQUEST_TIMEOUT_MS: "20000", RETRY_MAX_MS: "500" }));
  bridges.push(bridge);
  return bridge;
}

async function connect(bridge: ChildBridge): Promise<MllpClient> {
  const client = await MllpClient.connect(bridge.mllpPort);
  clients.push(client);
  return client;
}

async function sendAccepted(client: MllpClient, message: Adt): Promise<void> {
  const reply = msa(await client.send(message.text));
  expect(reply, message.controlId).toMatchObject({ code: "AA", controlId: message.controlId });
}

/** Waits until the Worker has processed `message` and returns the Patient ids its record lists. */
async function processedPatients(target: RunningWorker, message: Adt): Promise<string[]> {
  const record = await waitFor(
    async () => {
      const [row] = await messagesWithControlId(target, SENDER, message.controlId);
      if (row?.status === "failed" || row?.status === "rejected") throw new Error(`${message.controlId} is ${row.status}`);
      return row?.status === "processed" ? row : null;
    },
    `${message.controlId} processed by the Worker`,
    DELIVERY_TIMEOUT_MS,
    POLL_MS,
  );
  const detail = await messageDetail(target, record.id);
  expect(detail.executions.length, message.controlId).toBeGreaterThan(0);
  return detail.resources.filter((r) => r.startsWith("Patient/")).map((r) => r.slice("Patient/".length));
}

async function expectPatientStored(target: RunningWorker, message: Adt): Promise<void> {
  const fromRecord = await processedPatients(target, message);
  expect(fromRecord, message.controlId).toHaveLength(1);
  expect(await patientsWithIdentifier(target, message.patientId)).toEqual(fromRecord);
}

beforeAll(async () => {
  worker = await startWorker();
  await deployAdtToFhir(worker);
}, 90_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.allSettled(bridges.map((b) => stopBridge(b)));
  if (restarted?.pid) await stopProcessGroup(restarted.pid);
  if (worker && !workerStopped) await worker.stop();
  else if (worker?.stateDir) rmSync(worker.stateDir, { recursive: true, force: true });
  for (const dir of dirs) dir.remove();
}, 60_000);

describe("bridge → real Worker", () => {
  let bridge: ChildBridge;
  let client: MllpClient;

  it("turns ADT^A01 messages sent over MLLP into FHIR Patients", async () => {
    if (!worker) throw new Error("the Worker did not start");
    bridge = await startBridge(worker);
    client = await connect(bridge);
    const messages = [adt(1), adt(2)];
    for (const message of messages) await sendAccepted(client, message);
    for (const message of messages) await expectPatientStored(worker, message);
  }, 90_000);

  it("keeps one record and one Patient when a message is resent with the same MSH-10", async () => {
    if (!worker) throw new Error("the Worker did not start");
    const first = adt(1);
    const [before] = await patientsWithIdentifier(worker, first.patientId);
    await sendAccepted(client, first);
    // A second bridge has no memory of the message: this time the Worker's dedup must catch it.
    const fresh = await startBridge(worker);
    await sendAccepted(await connect(fresh), first);
    await waitFor(
      async () => (await getJson<{ queue_depth: number; error_queue_depth: number }>(fresh.statusPort, "/status")).body.queue_depth === 0,
      "the resent message forwarded by the second bridge",
      DELIVERY_TIMEOUT_MS,
      POLL_MS,
    );
    const status = await getJson<{ error_queue_depth: number }>(fresh.statusPort, "/status");
    expect(status.body.error_queue_depth).toBe(0);
    expect(await messagesWithControlId(worker, SENDER, first.controlId)).toHaveLength(1);
    expect(await patientsWithIdentifier(worker, first.patientId)).toEqual([before]);
  }, 60_000);

  it("delivers messages ACKed while the Worker is down once it is back on the same port and state", async () => {
    const target = worker;
    if (!target?.pid || !target.stateDir) throw new Error("the Worker did not start");
    workerStopped = true;
    await stopProcessGroup(target.pid);
    expect(await isUp(target.url)).toBe(false);

    const during = [adt(3), adt(4)];
    for (const message of during) await sendAccepted(client, message);
    const queued = await getJson<{ queue_depth: number }>(bridge.statusPort, "/status");
    expect(queued.body.queue_depth).toBe(during.length);

    restarted = await restartWorker(Number(new URL(target.url).port), target.stateDir);
    for (const message of during) await expectPatientStored(target, message);
    // What was delivered before the outage is still there: the state directory was kept.
    expect(await messagesWithControlId(target, SENDER, adt(1).controlId)).toHaveLength(1);
  }, 120_000);
});
