import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { enforceD1RowLimit } from "./d1-row-limit";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await enforceD1RowLimit(env.DB);
