// The databases of wrangler.toml as the scripts see them: the control database (binding DB)
// and the data shards DATA_SHARDS lists, each by its database_name for `wrangler d1 ...`.
import { createRequire } from "node:module";
import { emptiestShard, parseShardList } from "../../src/platform/shard-list";

interface Databases {
  control: string;
  /** Shard binding -> database_name. */
  shards: Map<string, string>;
  pooled: readonly string[];
}

let cached: Databases | undefined;

export function databases(): Databases {
  if (cached) return cached;
  // Loaded on first use: wrangler takes seconds to import, and usage errors need none of it.
  const { unstable_readConfig } = createRequire(import.meta.url)("wrangler") as typeof import("wrangler");
  const config = unstable_readConfig({ config: "wrangler.toml" });
  const d1: { binding: string; database_name?: string }[] = config.d1_databases;
  const byBinding = new Map<string, string>(d1.map((d) => [d.binding, d.database_name ?? d.binding]));
  const list = parseShardList(String(config.vars.DATA_SHARDS ?? ""));
  const missing = list.names.find((name) => !byBinding.has(name));
  if (missing) throw new Error(`DATA_SHARDS names ${missing}, but wrangler.toml binds no D1 database as ${missing}`);
  const control = byBinding.get("DB");
  if (!control) throw new Error("wrangler.toml binds no control database as DB");
  const found: Databases = { control, shards: new Map(list.names.map((name) => [name, byBinding.get(name)!])), pooled: list.pooled };
  cached = found;
  return found;
}

/** Every database the migrations go to: the control database, then each shard. */
export function allDatabaseNames(): string[] {
  const { control, shards } = databases();
  return [control, ...shards.values()];
}

/** The database_name of shard `binding`, or an error naming the declared ones. */
export function shardDatabaseName(binding: string): string {
  const name = databases().shards.get(binding);
  if (!name) throw new Error(`No shard ${binding}; DATA_SHARDS lists ${[...databases().shards.keys()].join(", ")}`);
  return name;
}

/** Where a new organization goes: `requested`, or the pooled shard with the fewest organizations. */
export function shardForNewOrg(requested: string | undefined, counts: { shard: string; n: number }[]): string {
  if (requested !== undefined) {
    shardDatabaseName(requested);
    return requested;
  }
  return emptiestShard(databases().pooled, new Map(counts.map((c) => [c.shard, Number(c.n)])));
}
