// A closed-loop HTTP load generator: `concurrency` clients each send the next
// request when the previous answers, for `seconds`; reports throughput and latency.
import type { Figure } from "./measured";

export interface LoadResult {
  label: string;
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Every request's latency, ms, ascending (for `combine`). */
  latencies?: number[];
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function load(
  label: string,
  request: () => Promise<Response>,
  opts: { concurrency: number; seconds: number; expectStatus?: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const deadline = start + opts.seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await request();
        await res.arrayBuffer();
        if (res.status !== (opts.expectStatus ?? 200)) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencies,
  };
}

/** One result of several runs of the same operation (alternating rounds): summed, percentiles over every request. */
export function combine(label: string, results: LoadResult[]): LoadResult {
  const latencies = results.flatMap((r) => r.latencies ?? []).sort((a, b) => a - b);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  const requests = results.reduce((n, r) => n + r.requests, 0);
  return { label, requests, errors: results.reduce((n, r) => n + r.errors, 0), seconds, rps: requests / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), latencies };
}

/** The median of a non-empty list. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The run's throughput as a figure to check: no requests or any error means it measured nothing. */
export function throughput(r: LoadResult): Figure {
  return { label: `${r.label} req/s`, value: r.rps, errors: r.errors };
}

export function formatResult(r: LoadResult): string {
  return `${r.label.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   (${r.requests} requests, ${r.errors} errors)`;
}
