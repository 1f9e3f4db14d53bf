import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { controlDatabase, shardDatabase, shardNames } from "../../src/platform/shards";
import { enforceD1RowLimit } from "./d1-row-limit";

// Two migration sets, as deployed: the control database's tables, and every shard's data tables.
await applyD1Migrations(controlDatabase(env), env.CONTROL_MIGRATIONS);
await enforceD1RowLimit(controlDatabase(env));
for (const name of shardNames(env)) {
  await applyD1Migrations(shardDatabase(env, name), env.DATA_MIGRATIONS);
  await enforceD1RowLimit(shardDatabase(env, name));
}
