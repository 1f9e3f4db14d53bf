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

/**
 * Which D1 databases: the deployed ones (`remote`), or the local ones in `persistTo` (wrangler's
 * `--persist-to`; default `.wrangler/state`, where `wrangler dev` and `npm start` keep theirs).
 */
export interface D1Target {
  remote?: boolean;
  persistTo?: string;
}

function targetArgs({ remote = false, persistTo }: D1Target): string[] {
  if (remote) return ["--remote"];
  return persistTo ? ["--local", "--persist-to", persistTo] : ["--local"];
}

/** The control set to the control database, the data set to every shard (wrangler.toml's migrations_dir). */
export function applyMigrations(target: D1Target = {}): void {
  for (const database of allDatabaseNames()) {
    try {
      wrangler(["d1", "migrations", "apply", database, ...targetArgs(target)], { quiet: true, remote: target.remote ?? false });
    } catch (error) {
      if (!target.remote && madeWithOneSet(database, target)) {
        throw new Error(`The local state in ${target.persistTo ?? ".wrangler/state"} predates the split of the migrations into a control and a data set (2026-11-24); delete that folder and start again.`);
      }
      throw error;
    }
  }
}

/** Local state from before the split records the old single set's first migration. */
function madeWithOneSet(database: string, target: D1Target): boolean {
  try {
    return execSql<{ name: string }>("SELECT name FROM d1_migrations", target, database).some((m) => m.name === "0000_foundation.sql");
  } catch {
    return false;
  }
}

/** Executes statements on `database` (default: the control database) and returns the rows of the last one. */
export function execSql<T = Record<string, unknown>>(sql: string, target: D1Target = {}, database = databases().control): T[] {
  const out = wrangler(["d1", "execute", database, ...targetArgs(target), "--json", "--command", sql], {
    quiet: true,
    remote: target.remote ?? false,
  });
  const results = JSON.parse(out) as { results: T[] }[];
  return results.at(-1)?.results ?? [];
}
