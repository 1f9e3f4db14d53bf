// Runs wrangler offline (no account, no telemetry) and executes SQL against the
// local or remote D1 database through `wrangler d1 execute`.
import { spawn, spawnSync } from "node:child_process";
import { allDatabaseNames, databases } from "./shards";


export const offlineEnv: NodeJS.ProcessEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
};

export function wrangler(args: string[], opts: { quiet?: boolean; remote?: boolean } = {}) {
  const result = spawnSync("wrangler", args, {
    env: opts.remote ? process.env : offlineEnv,
    encoding: "utf8",
    stdio: opts.quiet ? "pipe" : ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) {
    throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stderr ?? ""}${result.stdout ?? ""}`);
  }
  return result.stdout ?? "";
}

export function startWrangler(args: string[]) {
  return spawn("wrangler", args, { env: offlineEnv, stdio: "inherit" });
}

/** SQL string literal; the only way values reach SQL in these scripts. */
export function lit(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}

/** The one migration set, applied to the control database and every shard. */
export function applyMigrations(remote = false): void {
  for (const database of allDatabaseNames()) {
    wrangler(["d1", "migrations", "apply", database, remote ? "--remote" : "--local"], { quiet: true, remote });
  }
}

/** Executes statements on `database` (default: the control database) and returns the rows of the last one. */
export function execSql<T = Record<string, unknown>>(sql: string, remote = false, database = databases().control): T[] {
  const out = wrangler(["d1", "execute", database, remote ? "--remote" : "--local", "--json", "--command", sql], {
    quiet: true,
    remote,
  });
  const results = JSON.parse(out) as { results: T[] }[];
  return results.at(-1)?.results ?? [];
}
