// `npm start`'s runtime (the bundle on Miniflare directly) against `npm run dev`'s (wrangler
// dev, with its proxy worker and Node process in the request path): GET /health req/s under
// each, one after the other in the same run, printed with their ratio (issue #23). npm start's
// is measured with its request lines off (LOG_LEVEL=none) and on (info, written to a discarded stdout).
import { type LoadResult, formatResult, load, throughput } from "./lib/load";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { type StartOptions, startWorker } from "./lib/worker";

const seconds = numberOption("seconds", Number(process.env.BENCH_SECONDS ?? 10));
const concurrency = numberOption("concurrency", Number(process.env.BENCH_CONCURRENCY ?? 16), { integer: true });
// /health counts per client IP (LIMIT_PUBLIC_PER_MINUTE); lifted so every request is served.
const vars = { LIMIT_PUBLIC_PER_MINUTE: "1000000000" };

async function healthUnder(label: string, opts: StartOptions): Promise<LoadResult> {
  const worker = await startWorker({ ...opts, vars });
  try {
    await load("warm-up", () => fetch(`${worker.url}/health`), { concurrency, seconds: 2 });
    return await load(label, () => fetch(`${worker.url}/health`), { concurrency, seconds });
  } finally {
    await worker.stop();
  }
}

const dev = await healthUnder("wrangler dev: GET /health", { runtime: "wrangler-dev" });
const start = await healthUnder("npm start: GET /health", { runtime: "miniflare", logLevel: "none" });
const logged = await healthUnder("npm start, LOG_LEVEL=info", { runtime: "miniflare", logLevel: "info" });
allMeasured([throughput(dev), throughput(start), throughput(logged)]);
console.log(`${concurrency} concurrent clients, ${seconds} s each, loopback`);
for (const r of [dev, start, logged]) console.log(formatResult(r));
console.log(`ratio npm start / wrangler dev: ${(start.rps / dev.rps).toFixed(2)}x req/s (${(logged.rps / dev.rps).toFixed(2)}x with request lines)`);
