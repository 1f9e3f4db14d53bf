// Cost of authentication + rate limiting per request: authenticated GET
// /api/organization beside unauthenticated GET /health (one D1 read each), in
// the same wrangler dev run, printed with their ratio.
import { formatResult, load, throughput } from "./lib/load";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { startWorker } from "./lib/worker";

const seconds = numberOption("seconds", Number(process.env.BENCH_SECONDS ?? 10));
const concurrency = numberOption("concurrency", Number(process.env.BENCH_CONCURRENCY ?? 16), { integer: true });

const worker = await startWorker({ limits: { apiPerMinute: 10_000_000 } });
try {
  // Warm up both paths (isolate start, DO creation, key cache).
  await load("warm-up", () => fetch(`${worker.url}/api/organization`, { headers: worker.headers }), { concurrency, seconds: 2 });
  const health = await load("GET /health (no auth)", () => fetch(`${worker.url}/health`), { concurrency, seconds });
  const authed = await load("GET /api/organization (auth+rl)", () => fetch(`${worker.url}/api/organization`, { headers: worker.headers }), {
    concurrency,
    seconds,
  });
  allMeasured([throughput(health), throughput(authed)]);
  console.log(`wrangler dev --local, ${concurrency} concurrent clients, ${seconds} s each`);
  console.log(formatResult(health));
  console.log(formatResult(authed));
  console.log(
    `ratio authenticated/health: throughput ${(authed.rps / health.rps).toFixed(2)}x, p50 latency ${(authed.p50 / health.p50).toFixed(2)}x`,
  );
} finally {
  await worker.stop();
}
