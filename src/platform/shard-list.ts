// DATA_SHARDS, parsed: which D1 bindings hold organizations' data, and which of them new
// organizations are spread over ("NAME:dedicated" is a database for one org an admin puts
// there). Pure, so the scripts (admin CLI, npm start) read the setting the same way.
import { ApiError } from "./errors";

export const shardConfigurationError = (message: string) => new ApiError(500, "CONFIGURATION_ERROR", message);

const SHARD_NAME = /^[A-Z][A-Z0-9_]*$/;
const DEDICATED = ":dedicated";

export interface ShardList {
  names: readonly string[];
  /** Shards new organizations may be placed on (all but those marked `:dedicated`). */
  pooled: readonly string[];
}

/** DATA_SHARDS parsed and checked for form (names, duplicates, a pooled shard); bindings are not looked at. */
export function parseShardList(raw: string | undefined): ShardList {
  if (!raw?.trim()) throw shardConfigurationError("DATA_SHARDS is not set: it lists the D1 bindings that hold organizations' data");
  const entries = raw.split(",").map((s) => s.trim()).filter(Boolean);
  const names = entries.map((e) => (e.endsWith(DEDICATED) ? e.slice(0, -DEDICATED.length) : e));
  const pooled = names.filter((_, i) => !entries[i]!.endsWith(DEDICATED));
  const bad = names.find((name) => !SHARD_NAME.test(name) || name === "DB");
  if (bad !== undefined) throw shardConfigurationError(`DATA_SHARDS names ${JSON.stringify(bad)}, which cannot be a data shard`);
  if (new Set(names).size !== names.length) throw shardConfigurationError("DATA_SHARDS names a shard twice");
  if (!pooled.length) throw shardConfigurationError("DATA_SHARDS has no shard for new organizations (every entry is :dedicated)");
  return { names: Object.freeze(names), pooled: Object.freeze(pooled) };
}

/** The pooled shard holding the fewest organizations (`counts`: orgs per shard). */
export function emptiestShard(pooled: readonly string[], counts: ReadonlyMap<string, number>): string {
  return [...pooled].sort((a, b) => (counts.get(a) ?? 0) - (counts.get(b) ?? 0))[0]!;
}

