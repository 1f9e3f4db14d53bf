// Runs wrangler offline (no account, no telemetry), and opens the local or remote D1 databases
// (local ones in-process, scripts/lib/local-d1.ts; remote ones through `wrangler d1 … --remote`).
import { spawn, spawnSync } from "node:child_process";
import { openLocalD1 } from "./local-d1";
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

/**
 * Which D1 databases: the deployed ones (`remote`), or the local ones in `persistTo` (wrangler's
 * `--persist-to`; default `.wrangler/state`, where `wrangler dev` and `npm start` keep theirs).
 */
export interface D1Target {
  remote?: boolean;
  persistTo?: string;
  /** The wrangler.toml naming the databases (default: the working directory's). */
  config?: string;
}

/** The local or remote databases of wrangler.toml, open for a script's run. */
export interface D1Session {
  /** The control set to the control database, the data set to every shard (wrangler.toml's migrations_dir). */
  applyMigrations(): Promise<void>;
  /** Executes statements on `database` (default: the control database) and returns the rows of the last one. */
  execSql<T = Record<string, unknown>>(sql: string, database?: string): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * Local databases: one in-process Miniflare on wrangler's files (scripts/lib/local-d1.ts), since a
 * `wrangler d1` command per step cost seconds of CPU each. Remote ones: `wrangler d1 … --remote`.
 */
export async function openD1(target: D1Target = {}): Promise<D1Session> {
  if (target.remote) return remoteD1();
  const local = await openLocalD1(target.config ?? "wrangler.toml", target.persistTo);
  const execSql = async <T>(sql: string, database = databases().control) => ((await local.exec(database, sql)).at(-1) ?? []) as T[];
  return {
    async applyMigrations() {
      for (const database of allDatabaseNames()) {
        try {
          await local.applyMigrations(database);
        } catch (error) {
          // Local state from before the split records the old single set's first migration.
          const names = await execSql<{ name: string }>("SELECT name FROM d1_migrations", database).catch(() => []);
          if (names.some((m) => m.name === "0000_foundation.sql")) {
            throw new Error(`The local state in ${target.persistTo ?? ".wrangler/state"} predates the split of the migrations into a control and a data set (2026-11-24); delete that folder and start again.`);
          }
          throw error;
        }
      }
    },
    execSql,
    close: () => local.close(),
  };
}

/**
 * Opens the databases of `target`, brings local ones up to the migrations (remote ones are
 * migrated by the operator, README "Deploying to Cloudflare"), runs `work` on them and closes them.
 */
export async function withMigratedD1<T>(target: D1Target, work: (d1: D1Session) => Promise<T>): Promise<T> {
  const d1 = await openD1(target);
  try {
    if (!target.remote) await d1.applyMigrations();
    return await work(d1);
  } finally {
    await d1.close();
  }
}

function remoteD1(): D1Session {
  return {
    async applyMigrations() {
      for (const database of allDatabaseNames()) wrangler(["d1", "migrations", "apply", database, "--remote"], { quiet: true, remote: true });
    },
    async execSql<T>(sql: string, database = databases().control) {
      const out = wrangler(["d1", "execute", database, "--remote", "--json", "--command", sql], { quiet: true, remote: true });
      const results = JSON.parse(out) as { results: T[] }[];
      return results.at(-1)?.results ?? [];
    },
    async close() {},
  };
}
