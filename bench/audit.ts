// `npm run bench -- audit`: what the audit trail of management actions costs a management request.
// Two instances of the service under Miniflare (npm start's runtime), identical but for
// MANAGEMENT_AUDIT=off (honoured only under DEV_MODE), take the same audited management request,
// PUT /api/consent/policy, in alternating windows; the ratio of their p50 latencies is the figure
// (target ≤ 1.1×). The audit goes through the audit queue (the request waits for the send, not
// for storage), so the check that the trail is on waits for the consumer to store the event.
import { formatResult, load, type LoadResult, throughput } from "./lib/load";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { type RunningWorker, startWorker } from "./lib/worker";

const seconds = numberOption("seconds", Number(process.env.BENCH_SECONDS ?? 5));
const concurrency = numberOption("concurrency", Number(process.env.BENCH_CONCURRENCY ?? 4), { integer: true });
const rounds = numberOption("rounds", 2, { integer: true });

const limits = { apiPerMinute: 10_000_000 };
const [on, off] = await Promise.all([startWorker({ runtime: "miniflare", limits }), startWorker({ runtime: "miniflare", limits, vars: { MANAGEMENT_AUDIT: "off" } })]);

const put = (w: RunningWorker) => () =>
  fetch(`${w.url}/api/consent/policy`, { method: "PUT", headers: { ...w.headers, "content-type": "application/json" }, body: JSON.stringify({ default_policy: "opt-in", enforce_outbound: false }) });

try {
  // The trail really is on in one and off in the other.
  await put(on)();
  await put(off)();
  const count = async (w: RunningWorker) => ((await (await fetch(`${w.url}/api/audit?action=consent_policy.update&limit=1`, { headers: w.headers })).json()) as { total_count: number }).total_count;
  // Management AuditEvents go through the audit queue: the consumer stores them a moment later.
  let onCount = await count(on);
  for (const until = Date.now() + 30_000; onCount < 1 && Date.now() < until; onCount = await count(on)) await new Promise((r) => setTimeout(r, 250));
  const offCount = await count(off);
  if (onCount < 1 || offCount !== 0) throw new Error(`audit on recorded ${onCount}, off recorded ${offCount}: the switch did not take`);

  await load("warm-up on", put(on), { concurrency, seconds: 2, expectStatus: 200 });
  await load("warm-up off", put(off), { concurrency, seconds: 2, expectStatus: 200 });
  const results: { on: LoadResult[]; off: LoadResult[] } = { on: [], off: [] };
  for (let r = 0; r < rounds; r++) {
    results.off.push(await load(`PUT /api/consent/policy, audit off (round ${r + 1})`, put(off), { concurrency, seconds, expectStatus: 200 }));
    results.on.push(await load(`PUT /api/consent/policy, audit on (round ${r + 1})`, put(on), { concurrency, seconds, expectStatus: 200 }));
  }
  allMeasured([...results.on, ...results.off].map(throughput));
  for (const r of [...results.off, ...results.on]) console.log(formatResult(r));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const p50On = median(results.on.map((r) => r.p50));
  const p50Off = median(results.off.map((r) => r.p50));
  const rpsOn = median(results.on.map((r) => r.rps));
  const rpsOff = median(results.off.map((r) => r.rps));
  console.log(`Miniflare, ${concurrency} concurrent clients, ${rounds} × ${seconds} s each way`);
  console.log(`audit on / off: p50 latency ${(p50On / p50Off).toFixed(2)}× (target ≤ 1.1×), throughput ${(rpsOn / rpsOff).toFixed(2)}×`);
} finally {
  await Promise.all([on.stop(), off.stop()]);
}
