// Webhook acknowledgement latency: signed Oura notifications POSTed to
// /api/v1/webhooks/devices/smart_ring/{org} (signature check, org and credential lookup, the
// delivery recorded on the shard, queued, 200) beside a bare authenticated endpoint (GET
// /api/organization: auth, rate limit, one read) in the same wrangler dev run. Every
// notification body is distinct, so none is short-circuited as a replay. Target: p50 and p99
// of the webhook ≤ 1.5× the bare endpoint's.
import { createHmac } from "node:crypto";
import path from "node:path";
import { formatResult, load, throughput } from "./lib/load";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { startWorker } from "./lib/worker";

const seconds = numberOption("seconds", Number(process.env.BENCH_SECONDS ?? 10));
const concurrency = numberOption("concurrency", Number(process.env.BENCH_CONCURRENCY ?? 8), { integer: true });
const SECRET = "bench-oura-secret";

const worker = await startWorker({ limits: { apiPerMinute: 10_000_000 }, entry: path.join(import.meta.dirname, "wearables-worker.ts"), vars: { SERVICE_PROFILE: "bench" } });
let n = 0;
function signedNotification(): RequestInit {
  const body = JSON.stringify({ event_type: "create", data_type: "daily_sleep", object_id: `bench-${process.pid}-${n++}`, user_id: "bench-user", event_time: new Date().toISOString() });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac("sha256", SECRET).update(timestamp + body).digest("hex").toUpperCase();
  return { method: "POST", body, headers: { "content-type": "application/json", "x-oura-signature": signature, "x-oura-timestamp": timestamp } };
}
const webhookUrl = `${worker.url}/api/v1/webhooks/devices/smart_ring/${worker.orgId}`;

try {
  await load("warm-up", () => fetch(webhookUrl, signedNotification()), { concurrency, seconds: 2 });
  await load("warm-up", () => fetch(`${worker.url}/api/organization`, { headers: worker.headers }), { concurrency, seconds: 2 });
  const bare = await load("GET /api/organization (auth+rl)", () => fetch(`${worker.url}/api/organization`, { headers: worker.headers }), { concurrency, seconds });
  const hook = await load("POST signed webhook (ack)", () => fetch(webhookUrl, signedNotification()), { concurrency, seconds });
  allMeasured([throughput(bare), throughput(hook)]);
  console.log(`wrangler dev --local, ${concurrency} concurrent clients, ${seconds} s each`);
  console.log(formatResult(bare));
  console.log(formatResult(hook));
  const p50 = hook.p50 / bare.p50;
  const p99 = hook.p99 / bare.p99;
  console.log(`ratio webhook/bare: p50 ${p50.toFixed(2)}x, p99 ${p99.toFixed(2)}x (target ≤ 1.5x), throughput ${(hook.rps / bare.rps).toFixed(2)}x`);
} finally {
  await worker.stop();
}
