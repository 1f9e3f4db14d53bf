// Starts the service under `wrangler dev --local` (or, with runtime "miniflare", as `npm start`
// runs it) on a free port with its own state directory, seeds an organization and key, and
// stops it afterwards.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LogLevelName } from "../../scripts/lib/log-level";
import { insertApiKeySql, insertOrganizationSql } from "../../scripts/lib/records";
import { databases } from "../../scripts/lib/shards";
import { ensureConsoleBuilt } from "../../scripts/lib/console-build";
import { type D1Session, offlineEnv, withMigratedD1 } from "../../scripts/lib/wrangler";

export interface Credentials {
  orgId: string;
  apiKey: string;
  headers: Record<string, string>;
}

export interface RunningWorker extends Credentials {
  url: string;
  /** Further organizations seeded with `otherOrgs`, each with its own admin key. */
  others: Credentials[];
  /** Pid of `wrangler dev` (or the Miniflare process), leader of the process group that also holds its workerd. */
  pid?: number;
  /** The `--persist-to` state directory (removed by stop()). */
  stateDir?: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

// Runtimes started and not yet exited, by process-group leader. The group is detached (so that a
// stop reaches workerd too), so nothing else ends it: a caller that gives up before stop() (a test
// hook's timeout while the runtime was still starting) would leave it running after the process.
const running = new Set<number>();
process.once("exit", () => {
  for (const leader of running) killGroup(leader);
});

function killGroup(leader: number | undefined): void {
  if (!leader) return;
  try {
    process.kill(-leader, "SIGTERM");
  } catch {
    // already gone
  }
}

async function waitFor(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the runtime exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${url}`);
}

function credentials(orgId: string, apiKey: string): Credentials {
  return { orgId, apiKey, headers: { authorization: `Bearer ${apiKey}`, "x-organization-id": orgId } };
}

export interface StartOptions {
  limits?: Record<string, number>;
  otherOrgs?: number;
  stateDir?: string;
  /** The V8 inspector's port (profiles; both runtimes). */
  inspectorPort?: number;
  /** `wrangler-dev` (`npm run dev`'s runtime, the default) or `miniflare` (`npm start`'s). */
  runtime?: "wrangler-dev" | "miniflare";
  /** Variables over wrangler.toml's [vars]; DEV_MODE is "true" unless given. */
  vars?: Record<string, string>;
  /** The runtime's LOG_LEVEL (default error: no request lines). */
  logLevel?: LogLevelName;
  /** The data shard of each seeded organization, in order (default: all on the first shard). */
  orgShards?: string[];
  /** Another entry module over wrangler.toml's bindings (a bench's wiring around src/main/entry.ts). */
  entry?: string;
  /** How long the runtime may take to answer /health (default 60 s; building the bundle is most of it). */
  startTimeoutMs?: number;
}

/** Seeds the organizations and their admin keys, or reads them back from a kept state directory's `saved`. */
async function seed(d1: D1Session, opts: StartOptions, saved: string): Promise<Credentials[]> {
  if (opts.stateDir && existsSync(saved)) return JSON.parse(readFileSync(saved, "utf8")) as Credentials[];
  const orgIds = ["bench-org", ...Array.from({ length: opts.otherOrgs ?? 0 }, (_, i) => `bench-org-${i + 2}`)];
  const seeded: Credentials[] = [];
  let seedSql = "";
  for (const [i, orgId] of orgIds.entries()) {
    const { sql, secret } = await insertApiKeySql({ orgId, name: "bench", role: "admin" });
    // Every org on the first shard unless placed: the figures compare with runs before shards.
    const shard = opts.orgShards?.[i] ?? databases().pooled[0]!;
    seedSql += `${insertOrganizationSql(orgId, "Bench", shard, opts.limits ?? {})} ${sql} `;
    seeded.push(credentials(orgId, secret));
  }
  await d1.execSql(seedSql);
  if (opts.stateDir) writeFileSync(saved, JSON.stringify(seeded));
  return seeded;
}

/**
 * `stateDir`: keep the service's state there across runs (created and seeded the first time,
 * reused with the same organizations and keys afterwards, never removed), e.g. to load a big
 * organization once and benchmark it repeatedly. Without it, a fresh temporary state.
 */
export async function startWorker(opts: StartOptions = {}): Promise<RunningWorker> {
  const state = opts.stateDir ?? mkdtempSync(path.join(tmpdir(), "cdis-bench-"));
  const persist = ["--persist-to", state];
  const saved = path.join(state, "bench-credentials.json");
  mkdirSync(state, { recursive: true });
  const seeded = await withMigratedD1({ persistTo: state }, (d1) => seed(d1, opts, saved));
  ensureConsoleBuilt();
  const port = await freePort();
  const logLevel = opts.logLevel ?? "error";
  const vars = { DEV_MODE: "true", LOG_LEVEL: logLevel, ...opts.vars };
  const [command, args] =
    opts.runtime === "miniflare"
      ? ["tsx", [path.join(import.meta.dirname, "miniflare-process.ts"), "--port", String(port), "--state", state, "--log-level", logLevel, "--vars", JSON.stringify(vars), ...(opts.entry ? ["--entry", opts.entry] : []), ...(opts.inspectorPort ? ["--inspector-port", String(opts.inspectorPort)] : [])]]
      : ["wrangler", ["dev", ...(opts.entry ? [opts.entry] : []), "--local", "--port", String(port), "--ip", "127.0.0.1", ...persist, ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]), "--show-interactive-dev-session=false", "--test-scheduled", "--log-level", logLevel, ...(opts.inspectorPort ? ["--inspector-port", String(opts.inspectorPort)] : [])]];
  const child = spawn(command, args, { env: offlineEnv, stdio: ["ignore", "ignore", "inherit"], detached: true });
  const leader = child.pid;
  if (leader) running.add(leader);
  child.once("exit", () => leader && running.delete(leader));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/health`, child, opts.startTimeoutMs);
  } catch (e) {
    killGroup(leader);
    throw e;
  }
  const [first, ...others] = seeded as [Credentials, ...Credentials[]];
  return {
    url,
    ...first,
    others,
    ...(child.pid ? { pid: child.pid } : {}),
    stateDir: state,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        killGroup(leader);
        await exited;
      }
      if (!opts.stateDir) rmSync(state, { recursive: true, force: true });
    },
  };
}
