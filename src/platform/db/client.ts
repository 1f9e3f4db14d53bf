// Drizzle over a D1 binding. No schema is registered: stores query through the table objects
// they import, so this client knows no feature (and building it walks nothing).
import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";

export type Database = DrizzleD1Database;

/** A statement built but not yet run, for committing with others in one batch. */
export type Write = BatchItem<"sqlite">;

const instances = new WeakMap<D1Database, Database>();

/** One drizzle instance per binding, reused across requests of the isolate. */
export function database(d1: D1Database): Database {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1);
    instances.set(d1, db);
  }
  return db;
}
