// Drizzle over the D1 binding.
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Database = ReturnType<typeof drizzle<typeof schema>>;

/** A statement built but not yet run, for committing with others in one batch. */
export type Write = BatchItem<"sqlite">;

const instances = new WeakMap<D1Database, Database>();

/** One drizzle instance per binding: building one walks the whole schema, so it is reused. */
export function database(d1: D1Database): Database {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}
