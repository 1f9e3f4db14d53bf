// The request watchdog of `npm start`. workerd runs every request of every organization on one
// thread, and the installed workerd has no per-request CPU limit for a Worker of its own (its
// config has no `limits`; Cloudflare enforces one, workerd does not), nor does its inspector
// deliver Runtime.terminateExecution while JavaScript runs (tried: the message waits for the
// loop to end). So one request that never yields would hold the service for good. The watchdog
// asks a probe Worker in the same workerd for a reply every second; when none comes within the
// limit, the thread is held, and it restarts workerd (Miniflare's setOptions) on the same port.
// The data is on disk and stays; the held request's connection is closed.

/** WATCHDOG_SECONDS: how long workerd may answer nothing before it is restarted (0: never). */
export const DEFAULT_WATCHDOG_SECONDS = 30;

export function watchdogSeconds(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.WATCHDOG_SECONDS;
  if (raw === undefined || raw === "") return DEFAULT_WATCHDOG_SECONDS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`WATCHDOG_SECONDS must be a number of seconds, 0 to turn the watchdog off (got "${raw}")`);
  return n;
}

export interface WatchdogOptions {
  /** Resolves once the runtime answered; rejects (or is aborted by `signal`) otherwise. */
  probe(signal: AbortSignal): Promise<void>;
  /** Replaces the held runtime with a new one. */
  restart(): Promise<void>;
  limitMs: number;
  intervalMs?: number;
  log(line: string): void;
}

export interface Watchdog {
  /** Restarts done so far. */
  readonly restarts: number;
  stop(): Promise<void>;
}

export function startWatchdog({ probe, restart, limitMs, intervalMs = 1_000, log }: WatchdogOptions): Watchdog {
  let running = true;
  let restarts = 0;
  let wake: (() => void) | undefined;
  let current: AbortController | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (running) {
      const controller = new AbortController();
      current = controller;
      const timer = setTimeout(() => controller.abort(), limitMs);
      const failure = await probe(controller.signal).then(
        () => undefined,
        (err: unknown) => (controller.signal.aborted ? `answered nothing for ${limitMs / 1000} s (a request is holding its only thread)` : `did not answer (${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : err}: workerd may have exited)`),
      );
      clearTimeout(timer);
      if (!running) break;
      if (failure) {
        log(`[watchdog] workerd ${failure}: restarting it; requests under way have their connections closed, the data stays`);
        try {
          await restart();
          restarts++;
          log("[watchdog] workerd restarted; requests are answered again");
        } catch (err) {
          log(`[watchdog] restarting workerd failed: ${err instanceof Error ? err.message : err}`);
        }
      }
      await pause(intervalMs);
    }
  })();
  return {
    get restarts() {
      return restarts;
    },
    async stop() {
      running = false;
      current?.abort();
      wake?.();
      await loop;
    },
  };
}
