// Cost of authentication + rate limiting per request: authenticated GET /api/organization (the
// key from the isolate's cache, a lease of the org's window now and then, the organization row)
// beside unauthenticated GET /health (a query on every D1 database: the control database and
// both local shards), in the same wrangler dev run, printed with their ratio. Both limits a request here counts in are
// raised for this run (LIMITS, printed with the figures): the organization's API window and the
// per-client-IP window /health counts in (LIMIT_PUBLIC_PER_MINUTE, 300 by default, which 16
// clients spend in well under a second). The rate-limit bookkeeping still runs on every request;
// only no request is refused, so the figures are the cost of serving, not of 429s.
import { formatResult, load, throughput } from "./lib/load";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { startWorker } from "./lib/worker";

const seconds = numberOption("seconds", Number(process.env.BENCH_SECONDS ?? 10));
const concurrency = numberOption("concurrency", Number(process.env.BENCH_CONCURRENCY ?? 16), { integer: true });

/** Requests per minute each window admits in this run: far above what 16 clients send. */
const LIMITS = 10_000_000;
const worker = await startWorker({ limits: { apiPerMinute: LIMITS }, vars: { LIMIT_PUBLIC_PER_MINUTE: String(LIMITS) } });
try {
  // Warm up both paths (isolate start, DO creation, key cache, the databases).
  await load("warm-up", () => fetch(`${worker.url}/api/organization`, { headers: worker.headers }), { concurrency, seconds: 2 });
  await load("warm-up", () => fetch(`${worker.url}/health`), { concurrency, seconds: 2 });
  const health = await load("GET /health (no auth)", () => fetch(`${worker.url}/health`), { concurrency, seconds });
  const authed = await load("GET /api/organization (auth+rl)", () => fetch(`${worker.url}/api/organization`, { headers: worker.headers }), {
    concurrency,
    seconds,
  });
  allMeasured([throughput(health), throughput(authed)]);
  console.log(`wrangler dev --local, ${concurrency} concurrent clients, ${seconds} s each; limits raised for the run: ${LIMITS.toLocaleString("en")}/min for the org (apiPerMinute) and per client IP (LIMIT_PUBLIC_PER_MINUTE)`);
  console.log(formatResult(health));
  console.log(formatResult(authed));
  console.log(
    `ratio authenticated/health: throughput ${(authed.rps / health.rps).toFixed(2)}x, p50 latency ${(authed.p50 / health.p50).toFixed(2)}x`,
  );
} finally {
  await worker.stop();
}
