// Cron for the local runtimes: neither wrangler dev nor Miniflare fires a Worker's scheduled
// handler by itself, so at every minute boundary this runs it once per configured cron that
// matches the minute, with that minute as scheduledTime, as Cloudflare does. How it runs the
// handler is the runtime's: wrangler dev's trigger endpoint (`npm run dev`), or Miniflare's
// own API (`npm start`, scripts/lib/miniflare-runtime.ts), which also honours the minute.
import { Cron } from "croner";

/**
 * wrangler dev's `--test-scheduled` endpoint that runs the Worker's scheduled handler. Its
 * `/cdn-cgi/handler/scheduled` would take a `time`, but with static assets configured it reaches
 * the assets router, which has no scheduled handler, and answers "exception"
 * (cloudflare/workers-sdk#9882). This one runs in the Worker itself (wrangler.toml lists it in
 * `run_worker_first`) with the request's time as scheduledTime: the ticker fires just after the
 * minute boundary, so that is the minute. The `time` parameter is sent for runtimes that read it.
 */
export const SCHEDULED_PATH = "/__scheduled";

export interface CronTicker {
  stop(): void;
  /** Settles when the ticker has stopped. */
  done: Promise<void>;
}

/** Runs the Worker's scheduled handler once for `cron` at `minute`; rejects unless it succeeded. */
export type ScheduledFirer = (cron: string, minute: Date) => Promise<void>;

export type TickerOptions = TickerClock & {
  /** The `[triggers] crons` of wrangler.toml. */
  crons: string[];
  log?: (line: string) => void;
} & (
    | {
        /** Base URL of wrangler dev, e.g. http://127.0.0.1:8787: fires through its trigger endpoint. */
        url: string;
      }
    | { fire: ScheduledFirer }
  );

/** The ticker's clock; tests substitute one whose sleeps return at once. */
export interface TickerClock {
  now?: () => number;
  /** Resolves at epoch millisecond `at`, or early when `signal` aborts. */
  sleepUntil?: (at: number, signal: AbortSignal) => Promise<void>;
}

/** The crons (UTC, as on Cloudflare) that match the minute starting at `minute`. */
export function dueCrons(crons: string[], minute: Date): string[] {
  return crons.filter((c) => new Cron(c, { timezone: "UTC", paused: true }).match(minute));
}

/** The start of the minute after `ms`. */
export function nextMinute(ms: number): number {
  return (Math.floor(ms / 60_000) + 1) * 60_000;
}

/** Runs the Worker's scheduled handler once for `cron` at `minute`; throws unless it answers ok. */
export async function fireScheduled(url: string, cron: string, minute: Date): Promise<void> {
  const target = new URL(SCHEDULED_PATH, url);
  target.searchParams.set("cron", cron);
  target.searchParams.set("time", String(minute.getTime()));
  const res = await fetch(target);
  const body = await res.text();
  if (!res.ok) throw new Error(`scheduled handler for "${cron}" answered ${res.status} ${body.slice(0, 200)}`);
}

function sleep(at: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, at - Date.now()));
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", wake, { once: true });
  });
}

/**
 * Stops `ticker` and waits for its running tick, at most `graceMs`: a scheduled handler that
 * never returns must not hold up a stop. True if the ticker finished in time.
 */
export async function stopTicker(ticker: CronTicker, graceMs: number): Promise<boolean> {
  ticker.stop();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  try {
    return await Promise.race([ticker.done.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function startCronTicker(opts: TickerOptions): CronTicker {
  const { crons, log = console.log, now = Date.now, sleepUntil = sleep } = opts;
  const fire: ScheduledFirer = "fire" in opts ? opts.fire : (cron, minute) => fireScheduled(opts.url, cron, minute);
  // Invalid crons would fail on Cloudflare's side at deploy; say so now instead of every minute.
  for (const c of crons) new Cron(c, { paused: true });
  const stopper = new AbortController();
  const loop = async () => {
    while (!stopper.signal.aborted) {
      const at = nextMinute(now());
      await sleepUntil(at, stopper.signal);
      if (stopper.signal.aborted) return;
      for (const cron of dueCrons(crons, new Date(at))) {
        // A failed tick (wrangler restarting, a handler error) is reported; the next minute still runs.
        await fire(cron, new Date(at)).catch((e) => log(`cron ${cron} at ${new Date(at).toISOString()}: ${e instanceof Error ? e.message : e}`));
      }
    }
  };
  return { stop: () => stopper.abort(), done: crons.length ? loop() : Promise.resolve() };
}
