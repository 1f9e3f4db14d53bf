// A Durable Object's SqlStorage (`ctx.storage.sql`) over node:sqlite, for testing the SQL of
// modules that run in a Durable Object (their queries, and EXPLAIN QUERY PLAN on them) in Node.
// Only what those modules use: exec with bindings, and the cursor's toArray() and one().
import { DatabaseSync, type SQLInputValue } from "node:sqlite";

export function sqliteSqlStorage(db: DatabaseSync = new DatabaseSync(":memory:")): SqlStorage & { db: DatabaseSync } {
  const exec = (query: string, ...bindings: unknown[]) => {
    const rows = db.prepare(query).all(...(bindings as SQLInputValue[])) as Record<string, SqlStorageValue>[];
    return {
      toArray: () => rows,
      one: () => {
        if (rows.length !== 1) throw new Error(`Expected exactly one result from SQL query, but got ${rows.length}.`);
        return rows[0];
      },
      [Symbol.iterator]: () => rows[Symbol.iterator](),
    };
  };
  return { db, exec } as unknown as SqlStorage & { db: DatabaseSync };
}
