// The runtime of `npm start`: the production bundle on Miniflare, driven directly from this
// process. No dev proxy or inspector sits in the request path (wrangler dev puts both there, and
// they cost about two thirds of the CPU of a request, issue #23). The bindings are wrangler.toml's
// through wrangler's own conversion (unstable_getMiniflareWorkerOptions), and the state lives
// where wrangler dev keeps it, so either runtime sees the other's data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";
import { buildBundle } from "./bundle";
import { type ScheduledFirer, type TickerClock, startCronTicker, stopTicker } from "./cron-ticker";
import type { LogLevelName } from "./log-level";
import { DEFAULT_WATCHDOG_SECONDS, type Watchdog, startWatchdog } from "./watchdog";

const WRANGLER_TOML = path.resolve(import.meta.dirname, "../../wrangler.toml");
/** How long a stop waits for a running scheduled handler before disposing Miniflare under it. */
const TICK_GRACE_MS = 10_000;
/**
 * How long a stop lets Miniflare's queues deliver before disposing them: it keeps queued messages
 * in memory, and the audit queue's batch timeout is 1 s (wrangler.toml), so reads' AuditEvents
 * sent just before the stop are stored rather than lost (docs/audit.md).
 */
const QUEUE_DRAIN_MS = 2_000;
/** A Worker of its own in the same workerd, on its own socket: it answers only while workerd's thread is free (watchdog.ts). */
const PROBE_WORKER = "cdis-watchdog-probe";
const PROBE_SCRIPT = `export default { fetch() { return new Response("alive"); } }`;

export interface MiniflareRuntimeOptions {
  /** 0 picks a free port (see `url`). */
  port: number;
  host?: string;
  /** wrangler's `--persist-to` directory; Miniflare keeps its data in `<stateDir>/v3` as wrangler dev does. */
  stateDir: string;
  logLevel: LogLevelName;
  /** Variables over wrangler.toml's [vars] and .dev.vars, e.g. DEV_MODE. */
  vars?: Record<string, string>;
  /** Where Miniflare's lines go (request lines included); a console logger at `logLevel` by default. */
  log?: Log;
  /** The cron ticker's clock (tests). */
  clock?: TickerClock;
  /** Another entry module over wrangler.toml's bindings (a benchmark's wiring around src/main/entry.ts). */
  entry?: string;
  /** Opens workerd's V8 inspector on this port (benchmark profiles; never `npm start`'s request path). */
  inspectorPort?: number;
  /** Seconds workerd may answer nothing before the watchdog restarts it (WATCHDOG_SECONDS; 0: no watchdog). */
  watchdogSeconds?: number;
}

export interface MiniflareRuntime {
  url: string;
  /** The crons of wrangler.toml [triggers], ticked at each minute. */
  crons: string[];
  /** Runs the Worker's scheduled handler once, as the ticker does. */
  fireScheduled: ScheduledFirer;
  /** Times the watchdog restarted a held workerd. */
  readonly restarts: number;
  /** Stops the ticker and disposes Miniflare (and its workerd). */
  stop(): Promise<void>;
}

/** Miniflare's level for a LOG_LEVEL (kept here: only npm start's runtime may load Miniflare). */
export function miniflareLogLevel(name: LogLevelName): LogLevel {
  return { debug: LogLevel.DEBUG, info: LogLevel.INFO, warn: LogLevel.WARN, error: LogLevel.ERROR, none: LogLevel.NONE }[name];
}

function scheduledFirer(mf: Miniflare): ScheduledFirer {
  return async (cron, minute) => {
    const worker = await mf.getWorker();
    const result = await worker.scheduled({ cron, scheduledTime: minute });
    if (result.outcome !== "ok") throw new Error(`scheduled handler for "${cron}" ended with outcome ${result.outcome}`);
  };
}

export async function startMiniflareRuntime(opts: MiniflareRuntimeOptions): Promise<MiniflareRuntime> {
  const config = unstable_readConfig({ config: WRANGLER_TOML });
  const { workerOptions, externalWorkers } = unstable_getMiniflareWorkerOptions(config);
  const { modulesRules = [], ...bindings } = workerOptions;
  if (!config.main) throw new Error("wrangler.toml names no main module");
  const bundleDir = mkdtempSync(path.join(tmpdir(), "cdis-start-bundle-"));
  const removeBundle = () => rmSync(bundleDir, { recursive: true, force: true });
  const level = miniflareLogLevel(opts.logLevel);
  const log = opts.log ?? new Log(level);
  let mf: Miniflare | undefined;
  try {
    const modules = opts.entry ? buildBundle(bundleDir, opts.entry, modulesRules, true) : buildBundle(bundleDir, config.main, modulesRules);
    const watchdogSeconds = opts.watchdogSeconds ?? DEFAULT_WATCHDOG_SECONDS;
    const probeWorker = { name: PROBE_WORKER, modules: true, script: PROBE_SCRIPT, unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }] };
    const options = {
      host: opts.host ?? "127.0.0.1",
      port: opts.port,
      log,
      // The Worker writes one structured line per request itself, at its LOG_LEVEL (given below),
      // so Miniflare's own request lines would only repeat them.
      logRequests: false,
      defaultPersistRoot: path.join(path.resolve(opts.stateDir), "v3"),
      // Offline: request.cf is Miniflare's built-in placeholder, never fetched from Cloudflare.
      cf: false,
      ...(opts.inspectorPort ? { inspectorPort: opts.inspectorPort } : {}),
      workers: [
        {
          ...bindings,
          // wrangler dev names the Worker after wrangler.toml; Durable Objects persist under that name.
          name: config.name,
          modules,
          modulesRoot: bundleDir,
          bindings: { ...bindings.bindings, LOG_LEVEL: opts.logLevel, ...opts.vars },
        },
        ...externalWorkers,
        ...(watchdogSeconds > 0 ? [probeWorker] : []),
      ],
    };
    mf = new Miniflare(options);
    const url = await mf.ready;
    const crons = config.triggers.crons ?? [];
    const fireScheduled = scheduledFirer(mf);
    const ticker = startCronTicker({ crons, fire: fireScheduled, log: (line) => log.warn(`[cron] ${line}`), ...opts.clock });
    const running = mf;
    let watchdog: Watchdog | undefined;
    if (watchdogSeconds > 0) {
      let probeUrl = await running.unsafeGetDirectURL(PROBE_WORKER);
      watchdog = startWatchdog({
        limitMs: watchdogSeconds * 1000,
        log: (line) => log.warn(line),
        probe: async (signal) => {
          await (await fetch(probeUrl, { signal })).text();
        },
        // The same workerd configuration again, on the port it listens on now (PORT=0 picked one).
        restart: async () => {
          await running.setOptions({ ...options, port: Number(url.port) });
          probeUrl = await running.unsafeGetDirectURL(PROBE_WORKER);
        },
      });
    }
    return {
      url: url.origin,
      crons,
      fireScheduled,
      get restarts() {
        return watchdog?.restarts ?? 0;
      },
      async stop() {
        try {
          await watchdog?.stop();
          if (!(await stopTicker(ticker, TICK_GRACE_MS))) log.warn(`[cron] the scheduled handler still ran after ${TICK_GRACE_MS / 1000} s; stopping under it`);
          await new Promise((r) => setTimeout(r, QUEUE_DRAIN_MS));
          await running.dispose();
        } finally {
          removeBundle();
        }
      },
    };
  } catch (err) {
    // workerd may be gone already (a port in use kills it): the start error is the one to report.
    await mf?.dispose().catch(() => undefined);
    removeBundle();
    throw err;
  }
}
