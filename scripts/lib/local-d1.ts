// The local D1 databases as `wrangler d1 execute --local` and `wrangler d1 migrations apply
// --local` reach them, but from one Miniflare in this process. Each of those wrangler commands
// loads wrangler (seconds of CPU) and starts a workerd per statement batch (migrations apply: one
// for the table, one for the list, one per migration); the scripts and the tests that start the
// service ran several per start. This does what wrangler 4's executeLocally and migrations apply
// do (wrangler-dist/cli.js): the same files (`<persistTo>/v3/d1`, keyed by database id), the same
// statement split, one batch per call, and the same d1_migrations table and rows, so wrangler,
// wrangler dev and npm start see the state exactly as if wrangler had made it.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Miniflare as MiniflareClass } from "miniflare";

/** wrangler's default migrations table (a wrangler.toml `migrations_table` overrides it). */
const DEFAULT_MIGRATIONS_TABLE = "d1_migrations";

interface D1Result {
  results?: Record<string, unknown>[];
}
interface D1Binding {
  prepare(sql: string): unknown;
  batch(statements: unknown[]): Promise<D1Result[]>;
}

export interface LocalD1 {
  /** Runs `sql` (one or more statements) as one batch on `database`; the rows of each statement. */
  exec(database: string, sql: string): Promise<Record<string, unknown>[][]>;
  /** Applies `database`'s unapplied migrations in order, each with its d1_migrations row. */
  applyMigrations(database: string): Promise<void>;
  close(): Promise<void>;
}

interface DatabaseConfig {
  binding: string;
  database_name?: string;
  database_id?: string;
  preview_database_id?: string;
  migrations_dir?: string;
  migrations_table?: string;
}

/**
 * Opens the local databases of `configPath` (wrangler.toml) in `persistTo` (relative to the
 * working directory, as `--persist-to`; default `.wrangler/state` beside wrangler.toml).
 */
export async function openLocalD1(configPath: string, persistTo?: string): Promise<LocalD1> {
  // Loaded on first use, as in shards.ts, so usage errors start in a second. (Loading wrangler
  // loads Miniflare anyway: this adds no module load, it saves the wrangler processes.)
  const load = createRequire(import.meta.url);
  const { unstable_readConfig, unstable_splitSqlQuery } = load("wrangler") as typeof import("wrangler");
  const { Miniflare } = load("miniflare") as { Miniflare: typeof MiniflareClass };
  const config = unstable_readConfig({ config: configPath });
  const root = path.dirname(config.configPath ?? path.resolve(configPath));
  const persistence = persistTo ? path.resolve(persistTo) : path.join(root, ".wrangler/state");
  const list = (config.d1_databases as DatabaseConfig[]).map((d, i) => ({ ...d, key: `D1_${i}` }));
  const mf = new Miniflare({
    modules: true,
    script: "",
    cf: false,
    d1Persist: path.join(persistence, "v3", "d1"),
    // wrangler's local id: the preview id if there is one, else the id, else the binding.
    d1Databases: Object.fromEntries(list.map((d) => [d.key, d.preview_database_id ?? d.database_id ?? d.binding])),
  });
  const lookUp = (database: string) => {
    const found = list.find((d) => (d.database_name ?? d.binding) === database) ?? list.find((d) => d.binding === database);
    if (!found) throw new Error(`wrangler.toml has no D1 database named or bound as ${database}`);
    return found;
  };

  async function exec(database: string, sql: string): Promise<Record<string, unknown>[][]> {
    const db = (await mf.getD1Database(lookUp(database).key)) as unknown as D1Binding;
    let results: D1Result[];
    try {
      results = await db.batch(unstable_splitSqlQuery(sql).map((query) => db.prepare(query)));
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause ?? e;
      throw new Error(`${database}: ${cause instanceof Error ? cause.message : String(cause)}`);
    }
    // As wrangler's --json: an array value (a blob) becomes "[1, 2, …]".
    return results.map((r) => (r.results ?? []).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Array.isArray(v) ? `[${v.join(", ")}]` : v]))));
  }

  async function applyMigrations(database: string): Promise<void> {
    const d = lookUp(database);
    const table = d.migrations_table ?? DEFAULT_MIGRATIONS_TABLE;
    const dir = path.resolve(root, d.migrations_dir ?? "migrations");
    await exec(database, `CREATE TABLE IF NOT EXISTS ${table}(\n\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,\n\t\tname       TEXT UNIQUE,\n\t\tapplied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL\n);`);
    const [applied = []] = await exec(database, `SELECT name FROM ${table} ORDER BY id`);
    const done = new Set(applied.map((m) => m.name));
    // wrangler's order: by name, then (stably) by the number before the first "_".
    const pending = readdirSync(dir)
      .filter((name) => name.endsWith(".sql") && !done.has(name))
      .sort()
      .sort((a, b) => Number.parseInt(a.split("_")[0]!, 10) - Number.parseInt(b.split("_")[0]!, 10));
    for (const name of pending) {
      await exec(database, `${readFileSync(path.join(dir, name), "utf8")}\nINSERT INTO ${table} (name) values ('${name}');`);
    }
  }

  return { exec, applyMigrations, close: () => mf.dispose() };
}
