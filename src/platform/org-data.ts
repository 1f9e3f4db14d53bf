// What every store of one organization runs on: the org's shard (raw D1 for the FHIR store's
// hand-written SQL, drizzle for the rest), the control database and the blob bucket. Built
// only by the composition root (src/main/context.ts), so no store picks its own database.
import { type Database, database } from "./db/client";
import type { Env } from "./env";
import type { Placement } from "./directory";
import { controlDatabase, shardDatabase } from "./shards";

export interface OrgData {
  readonly env: Env;
  readonly orgId: string;
  /** The shard binding name holding the org's rows. */
  readonly shard: string;
  /** Set while an operator moves the org: its rows may only be appended to (reads' audits). */
  readonly movingTo: string | null;
  /** The shard's D1 database. */
  readonly d1: D1Database;
  /** Drizzle over `d1`. */
  readonly db: Database;
  /** Organizations, API keys and the directory. */
  readonly control: Database;
  readonly blobs: R2Bucket;
}

/** `d1`: the shard as the caller opened it (a request's read-replication session, db/session.ts); the shard itself by default. */
export function orgData(env: Env, placement: Placement, d1: D1Database = shardDatabase(env, placement.shard)): OrgData {
  return { env, orgId: placement.orgId, shard: placement.shard, movingTo: placement.movingTo, d1, db: database(d1), control: controlStore(env), blobs: env.BLOBS };
}

/** Drizzle over the control database (auth, organizations, keys). */
export function controlStore(env: Env): Database {
  return database(controlDatabase(env));
}
