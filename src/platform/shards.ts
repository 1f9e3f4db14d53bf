// The data shards: the D1 bindings organizations' rows may live on, declared once in the
// DATA_SHARDS setting (wrangler.toml [vars]). A name the directory holds but the list or
// the bindings lack is a configuration error (500 CONFIGURATION_ERROR), never a fallback
// to another database: a fallback would put one org's rows beside another's by accident.
import { optionalBinding, settingsOf } from "./settings";
import { type ShardList, parseShardList, shardConfigurationError } from "./shard-list";

export { emptiestShard, shardConfigurationError } from "./shard-list";

const lists = new WeakMap<object, ShardList>();

/** The shard binding names of this deployment, in declaration order (validated once per env). */
export function shardNames(env: object): readonly string[] {
  return shardList(env).names;
}

/** The shards new organizations are spread over: a `NAME:dedicated` entry is for one org an admin puts there. */
export function pooledShards(env: object): readonly string[] {
  return shardList(env).pooled;
}

function shardList(env: object): ShardList {
  const cached = lists.get(env);
  if (cached) return cached;
  const list = parseShardList(settingsOf(env).DATA_SHARDS);
  const unbound = list.names.find((name) => !isD1(optionalBinding(env, name)));
  if (unbound) throw shardConfigurationError(`DATA_SHARDS names ${unbound}, but no D1 database is bound as ${unbound}`);
  lists.set(env, list);
  return list;
}

/** The D1 database of shard `name`; a configuration error when it is not a declared shard. */
export function shardDatabase(env: object, name: string): D1Database {
  if (!shardNames(env).includes(name)) throw shardConfigurationError(`Shard ${JSON.stringify(name)} is not one of DATA_SHARDS`);
  return optionalBinding<D1Database>(env, name)!;
}

/** The control database and every shard (health checks, migrations). */
export function allDatabases(env: { DB: D1Database }): D1Database[] {
  return [controlDatabase(env), ...shardNames(env).map((name) => shardDatabase(env, name))];
}

/** The control database: organizations, API keys, the directory. */
export function controlDatabase(env: { DB: D1Database }): D1Database {
  return env.DB;
}

function isD1(value: unknown): value is D1Database {
  return !!value && typeof (value as D1Database).prepare === "function" && typeof (value as D1Database).batch === "function";
}
