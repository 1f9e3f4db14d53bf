import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { allDatabases } from "../../src/platform/shards";
import { enforceD1RowLimit } from "./d1-row-limit";

// One migration set for every database: the control database and each data shard.
for (const db of allDatabases(env)) {
  await applyD1Migrations(db, env.TEST_MIGRATIONS);
  await enforceD1RowLimit(db);
}
