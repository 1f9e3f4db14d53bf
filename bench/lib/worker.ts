// Starts the service under `wrangler dev --local` on a free port with its own
// state directory, seeds an organization and key, and stops it afterwards.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { insertApiKeySql, insertOrganizationSql } from "../../scripts/lib/records";
import { applyMigrations, execSql, offlineEnv } from "../../scripts/lib/wrangler";

export interface Credentials {
  orgId: string;
  apiKey: string;
  headers: Record<string, string>;
}

export interface RunningWorker extends Credentials {
  url: string;
  /** Further organizations seeded with `otherOrgs`, each with its own admin key. */
  others: Credentials[];
  /** Pid of `wrangler dev`, leader of the process group that also holds its workerd. */
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

async function waitFor(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
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

/**
 * `stateDir`: keep the service's state there across runs (created and seeded the first time,
 * reused with the same organizations and keys afterwards, never removed), e.g. to load a big
 * organization once and benchmark it repeatedly. Without it, a fresh temporary state.
 */
export async function startWorker(
  opts: { limits?: Record<string, number>; otherOrgs?: number; stateDir?: string; inspectorPort?: number } = {},
): Promise<RunningWorker> {
  const state = opts.stateDir ?? mkdtempSync(path.join(tmpdir(), "cdis-bench-"));
  const persist = ["--persist-to", state];
  const target = { persistTo: state };
  const saved = path.join(state, "bench-credentials.json");
  mkdirSync(state, { recursive: true });
  applyMigrations(target);
  let seeded: Credentials[];
  if (opts.stateDir && existsSync(saved)) {
    seeded = JSON.parse(readFileSync(saved, "utf8")) as Credentials[];
  } else {
    const orgIds = ["bench-org", ...Array.from({ length: opts.otherOrgs ?? 0 }, (_, i) => `bench-org-${i + 2}`)];
    seeded = [];
    let seedSql = "";
    for (const orgId of orgIds) {
      const { sql, secret } = await insertApiKeySql({ orgId, name: "bench", role: "admin" });
      seedSql += `${insertOrganizationSql(orgId, "Bench", opts.limits ?? {})} ${sql} `;
      seeded.push(credentials(orgId, secret));
    }
    execSql(seedSql, target);
    if (opts.stateDir) writeFileSync(saved, JSON.stringify(seeded));
  }
  const port = await freePort();
  const child = spawn("wrangler", ["dev", "--local", "--port", String(port), "--ip", "127.0.0.1", ...persist, "--var", "DEV_MODE:true", "--show-interactive-dev-session=false", "--log-level", "error", ...(opts.inspectorPort ? ["--inspector-port", String(opts.inspectorPort)] : [])], {
    env: offlineEnv,
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/health`, child);
  const [first, ...others] = seeded as [Credentials, ...Credentials[]];
  return {
    url,
    ...first,
    others,
    ...(child.pid ? { pid: child.pid } : {}),
    stateDir: state,
    async stop() {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => child.once("exit", r));
      if (!opts.stateDir) rmSync(state, { recursive: true, force: true });
    },
  };
}
