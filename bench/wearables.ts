// Wearable webhooks through a real `wrangler dev --local` (src/main/entry.ts as deployed, behind
// bench/wearables/held-consumer-worker.ts's switch for the queue consumer), with the tests' Oura
// mock served on loopback as the vendor's cloud (OUTBOUND_ALLOW=127.0.0.1) and the org's Oura
// integration configured through the API (credentials encrypted in D1, as in production).
// Three figures, each beside a baseline measured in the same run:
// 1. Acknowledgement latency: signed notifications (each body distinct, so none is a replay)
//    POSTed to /api/v1/webhooks/devices/smart_ring/{org} beside GET /api/organization (API key
//    auth, rate limit, one read). Target: p50 and p99 ≤ 1.5× the bare endpoint's. The queue
//    consumer is held meanwhile: under wrangler dev it runs on the requests' workerd thread,
//    which Cloudflare never does (a consumer is an invocation of its own), so it would time the
//    consumer's D1 work, not the acknowledgement.
// 2. Consumer throughput: the held deliveries, once released, recorded and settled per second.
// 3. Readings/s from signed webhook to stored Observation, consumer running: a device linked
//    through the real OAuth flow, then one `sleep` notification per vendor document; the consumer
//    fetches each document from the mock, maps it and stores the Observations; the clock stops
//    when the Observation count is complete. Beside: the same readings POSTed to
//    /api/v1/devices/readings (one request per document, same concurrency) for another device.
// Usage: npm run bench -- wearables [--seconds 10] [--concurrency 8] [--documents 200] [--consumer held|running]
import { createHmac } from "node:crypto";
import path from "node:path";
import { mapOura } from "../src/features/devices/platforms/oura/mapping";
import type { Reading } from "../src/features/devices/reading";
import { OURA_ORIGIN, ouraMock } from "../test/device-platforms/mocks/oura";
import { mockNetwork } from "../test/device-platforms/mocks/vendor-mock";
import sleepFixture from "../test/fixtures/wearables/oura-sleep.json";
import { serveOnLoopback } from "../test/support/loopback-http";
import { formatResult, load, throughput } from "./lib/load";
import { allMeasured, NothingMeasured } from "./lib/measured";
import { numberOption, option } from "./lib/options";
import { startWorker } from "./lib/worker";

const seconds = numberOption("seconds", Number(process.env.BENCH_SECONDS ?? 10));
const concurrency = numberOption("concurrency", Number(process.env.BENCH_CONCURRENCY ?? 8), { integer: true });
const DOCUMENTS = numberOption("documents", 200, { integer: true });
// `running`: the consumer is not held while acknowledgements are timed (how this bench measured before).
const consumerMode = option("consumer") ?? "held";
if (consumerMode !== "held" && consumerMode !== "running") throw new Error(`--consumer must be held or running, not ${consumerMode}`);
const CLIENT_ID = "bench-oura";
const SECRET = "bench-oura-secret";
const USER = { id: "bench-oura-user" };

const mock = ouraMock(CLIENT_ID, SECRET);
const network = mockNetwork(mock);
// The mock answers for OURA_ORIGIN; the loopback server hands it every request under that origin.
const vendor = await serveOnLoopback((url, init) => {
  const u = new URL(url);
  return network(`${OURA_ORIGIN}${u.pathname}${u.search}`, init);
});
const worker = await startWorker({
  limits: { apiPerMinute: 10_000_000 },
  entry: path.join(import.meta.dirname, "wearables/held-consumer-worker.ts"),
  vars: { OUTBOUND_ALLOW: "127.0.0.1", LIMIT_PUBLIC_PER_MINUTE: "10000000", LIMIT_WEBHOOK_PER_MINUTE: "10000000" },
});

/** Holds or releases the device events' consumer; the batches and messages it has finished. */
async function consumer(hold?: boolean): Promise<{ held: boolean; batches: number; messages: number }> {
  const res = await fetch(`${worker.url}/api/__bench/consumer${hold === undefined ? "" : `?hold=${hold ? 1 : 0}`}`, { method: hold === undefined ? "GET" : "POST" });
  if (!res.ok) throw new NothingMeasured(`the bench Worker answered ${res.status} at /api/__bench/consumer`);
  return (await res.json()) as { held: boolean; batches: number; messages: number };
}

async function api<T>(method: string, pathname: string, body?: unknown): Promise<T> {
  const res = await fetch(`${worker.url}${pathname}`, { method, headers: { ...worker.headers, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new NothingMeasured(`${method} ${pathname}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

function signed(payload: Record<string, unknown>): RequestInit {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac("sha256", SECRET).update(timestamp + body).digest("hex").toUpperCase();
  return { method: "POST", body, headers: { "content-type": "application/json", "x-oura-signature": signature, "x-oura-timestamp": timestamp } };
}

async function patientWithRing(family: string): Promise<{ patientId: string; deviceId: string }> {
  const patientId = (await api<{ id: string }>("POST", `/fhir/r4/${worker.orgId}/Patient`, { resourceType: "Patient", name: [{ family }] })).id;
  const deviceId = (await api<{ device_id: string }>("POST", `/api/v1/patients/${patientId}/devices`, { platform: "smart_ring", name: `${family} ring` })).device_id;
  return { patientId, deviceId };
}

/** The real OAuth flow: authorization URL, the vendor's consent, our callback (code exchange, user id). */
async function link(ids: { patientId: string; deviceId: string }): Promise<void> {
  const { authorization_url } = await api<{ authorization_url: string }>("POST", "/api/v1/device-platforms/smart_ring/authorizations", { patient_id: ids.patientId, device_id: ids.deviceId });
  const consent = mock.consent(USER, authorization_url);
  const callback = new URL(consent.redirectUri);
  callback.searchParams.set("code", consent.code);
  callback.searchParams.set("state", consent.state);
  const res = await fetch(`${worker.url}${callback.pathname}${callback.search}`);
  if (!res.ok) throw new NothingMeasured(`OAuth callback: ${res.status} ${await res.text()}`);
}

/** Vendor sleep documents, each a distinct night. */
function sleepDocuments(prefix: string): Record<string, unknown>[] {
  const base = sleepFixture.data[0]!;
  return Array.from({ length: DOCUMENTS }, (_, i) => {
    const shift = (iso: string) => new Date(Date.parse(iso) - (i + 1) * 86_400_000).toISOString();
    return { ...base, id: `${prefix}-${i}`, bedtime_start: shift(base.bedtime_start), bedtime_end: shift(base.bedtime_end), heart_rate: { ...base.heart_rate, timestamp: shift(base.heart_rate.timestamp) }, hrv: { ...base.hrv, timestamp: shift(base.hrv.timestamp) } };
  });
}

const asApiReading = (r: Reading) => ({
  patient_id: r.patientId,
  device_id: r.deviceId,
  metric: r.metric,
  ...(r.value === undefined ? {} : { value: r.value }),
  unit: r.unit,
  time: r.time,
  platform: r.platform,
  source_record_id: r.sourceRecordId,
  ...(r.absentReason ? { absent_reason: r.absentReason } : {}),
  ...(r.attributes ? { attributes: r.attributes } : {}),
});

const observationCount = async (patientId: string) => (await api<{ total: number }>("GET", `/fhir/r4/${worker.orgId}/Observation?subject=Patient/${patientId}&_summary=count`)).total;

/** Runs `jobs` with `concurrency` workers; the failures. */
async function pool(jobs: (() => Promise<Response>)[]): Promise<number> {
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const res = await noted(jobs[next++]!());
        await res.arrayBuffer();
        if (!res.ok) failures++;
      }
    }),
  );
  return failures;
}

/** The first few failed answers, printed when a figure is refused, so a failed run says why. */
const failures: string[] = [];
async function noted(response: Promise<Response>): Promise<Response> {
  const res = await response;
  if (!res.ok && failures.length < 5) failures.push(`${res.status} ${await res.clone().text()}`.slice(0, 300));
  return res;
}

async function acknowledgement(): Promise<number> {
  let n = 0;
  let queued = 0;
  // An unlinked vendor user: the consumer records and settles each delivery without vendor calls.
  const notification = () => signed({ event_type: "create", data_type: "daily_sleep", object_id: `ack-${process.pid}-${n++}`, user_id: "bench-unlinked", event_time: new Date().toISOString() });
  const webhookUrl = `${worker.url}/api/v1/webhooks/devices/smart_ring/${worker.orgId}`;
  const bareUrl = `${worker.url}/api/organization`;
  const deliver = async () => {
    const res = await noted(fetch(webhookUrl, notification()));
    if (res.ok) queued++;
    return res;
  };
  await consumer(consumerMode === "held");
  await load("warm-up", deliver, { concurrency, seconds: 2 });
  await load("warm-up", () => fetch(bareUrl, { headers: worker.headers }), { concurrency, seconds: 2 });
  const bare = await load("GET /api/organization (auth+rl)", () => fetch(bareUrl, { headers: worker.headers }), { concurrency, seconds });
  const hook = await load("POST signed webhook (ack)", deliver, { concurrency, seconds });
  allMeasured([throughput(bare), throughput(hook)]);
  console.log(`wrangler dev --local, ${concurrency} concurrent clients, ${seconds} s each, queue consumer ${consumerMode}`);
  console.log(formatResult(bare));
  console.log(formatResult(hook));
  console.log(`ratio webhook/bare: p50 ${(hook.p50 / bare.p50).toFixed(2)}x, p99 ${(hook.p99 / bare.p99).toFixed(2)}x (target ≤ 1.5x), throughput ${(hook.rps / bare.rps).toFixed(2)}x`);
  return queued;
}

/**
 * Releases the consumer and waits until it has settled the acknowledgement phase's deliveries
 * (`before`: its count when they began); held, that is timed as the consumer's throughput.
 */
async function consumerThroughput(before: { messages: number; batches: number }, queued: number): Promise<void> {
  const released = await consumer();
  const start = performance.now();
  await consumer(false);
  const deadline = Date.now() + 300_000;
  let done = released;
  while (done.messages - before.messages < queued) {
    if (Date.now() > deadline) throw new NothingMeasured(`the consumer settled ${done.messages - before.messages} of ${queued} deliveries in 300 s`);
    await new Promise((r) => setTimeout(r, 50));
    done = await consumer();
  }
  if (consumerMode !== "held") return;
  const seconds = (performance.now() - start) / 1000;
  const [rate] = allMeasured([{ label: "consumer deliveries/s", value: queued / seconds }]);
  console.log(`queue consumer, released: ${queued} deliveries recorded and settled in ${seconds.toFixed(2)} s, ${rate.toFixed(0)} deliveries/s (${(queued / (done.batches - before.batches)).toFixed(1)} per batch)`);
}

async function webhookToObservation(): Promise<void> {
  const linked = await patientWithRing("Webhook");
  await link(linked);
  const direct = await patientWithRing("Direct");
  const hookDocs = sleepDocuments("bench-sleep");
  mock.docs.set("sleep", [...(mock.docs.get("sleep") ?? []), ...hookDocs]);
  const expected = hookDocs.reduce((n, doc) => n + mapOura({ ...linked, platformUserId: USER.id }, "sleep", doc).length, 0);
  const baseline = sleepDocuments("direct-sleep").map((doc) => mapOura(direct, "sleep", doc));

  const startHook = performance.now();
  const hookFailures = await pool(hookDocs.map((doc) => () => fetch(`${worker.url}/api/v1/webhooks/devices/smart_ring/${worker.orgId}`, signed({ event_type: "create", data_type: "sleep", object_id: doc.id, user_id: USER.id, event_time: new Date().toISOString() }))));
  const deadline = Date.now() + 300_000;
  let stored = await observationCount(linked.patientId);
  while (stored < expected) {
    if (Date.now() > deadline) throw new NothingMeasured(`webhook → Observation: ${stored} of ${expected} Observations after 300 s`);
    await new Promise((r) => setTimeout(r, 50));
    stored = await observationCount(linked.patientId);
  }
  const hookSeconds = (performance.now() - startHook) / 1000;

  const startDirect = performance.now();
  const directFailures = await pool(baseline.map((readings) => () => fetch(`${worker.url}/api/v1/devices/readings`, { method: "POST", headers: { ...worker.headers, "content-type": "application/json" }, body: JSON.stringify({ readings: readings.map(asApiReading) }) })));
  const directSeconds = (performance.now() - startDirect) / 1000;
  const directStored = await observationCount(direct.patientId);

  const [hookRate, directRate] = allMeasured([
    { label: "webhook → Observation readings/s", value: stored / hookSeconds, errors: hookFailures },
    { label: "direct readings POST readings/s", value: directStored / directSeconds, errors: directFailures + (directStored === expected ? 0 : 1) },
  ]);
  console.log(`${DOCUMENTS} Oura sleep documents, ${expected} readings each way, ${concurrency} concurrent senders`);
  console.log(`signed webhook → queue → vendor fetch → Observations   ${hookRate.toFixed(0)} readings/s   (${hookSeconds.toFixed(2)} s until all ${stored} stored)`);
  console.log(`POST /api/v1/devices/readings, same readings          ${directRate.toFixed(0)} readings/s   (${directSeconds.toFixed(2)} s)`);
  console.log(`ratio webhook/direct: ${(hookRate / directRate).toFixed(2)}x`);
}

try {
  await api("POST", "/api/v1/device-integrations", {
    platform: "smart_ring",
    name: "Oura (bench)",
    credentials: { client_id: CLIENT_ID, client_secret: SECRET },
    settings: { authorize_url: `${vendor.origin}/oauth/authorize`, token_url: `${vendor.origin}/oauth/token`, revoke_url: `${vendor.origin}/oauth/revoke`, api_base_url: vendor.origin },
  });
  const before = await consumer();
  await consumerThroughput(before, await acknowledgement());
  await webhookToObservation();
} catch (e) {
  if (failures.length) console.error(`failed answers: ${failures.join(" | ")}`);
  throw e;
} finally {
  await worker.stop();
  await vendor.close();
}
