// A D1Database over node:sqlite for in-process benchmarks: the same SQL the Worker sends to
// D1 runs on the same SQLite engine, without the local proxy hiding engine costs. Batches are
// transactions, as on D1. It records the statements of the last batch for EXPLAIN QUERY PLAN.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import type { Env } from "../../src/platform/env";
import { type OrgData, orgData } from "../../src/platform/org-data";

type Value = null | number | bigint | string | Uint8Array;

export class SqliteD1 {
  readonly db: DatabaseSync;
  private readonly cache = new Map<string, StatementSync>();
  /** Recent statements (newest last), for EXPLAIN QUERY PLAN of what a search ran. */
  log: { sql: string; args: Value[] }[] = [];
  record(sql: string, args: Value[]) {
    this.log.push({ sql, args });
    if (this.log.length > 50) this.log.shift();
  }

  constructor(file: string) {
    this.db = new DatabaseSync(file);
    // A 64 MB page cache: SQLite's 2 MB default thrashes on a 1 GB database, which D1 does not.
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536;");
  }

  applyMigrations(dir: string): void {
    for (const f of readdirSync(dir).filter((x) => x.endsWith(".sql")).sort()) {
      for (const stmt of readFileSync(path.join(dir, f), "utf8").split("--> statement-breakpoint")) {
        if (stmt.trim()) this.db.exec(stmt);
      }
    }
  }

  statement(sql: string): StatementSync {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  prepare(sql: string): ShimStatement {
    return new ShimStatement(this, sql, []);
  }

  async batch(statements: ShimStatement[]): Promise<{ results: unknown[]; success: true; meta: object }[]> {
    for (const s of statements) this.record(s.sql, s.args);
    this.db.exec("BEGIN");
    try {
      const out = statements.map((s) => ({ results: s.rows(), success: true as const, meta: {} }));
      this.db.exec("COMMIT");
      return out;
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    }
  }

  /** EXPLAIN QUERY PLAN of a statement, one detail line per step. */
  explain(sql: string, args: Value[]): string[] {
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
  }
}

export class ShimStatement {
  constructor(
    readonly owner: SqliteD1,
    readonly sql: string,
    readonly args: Value[],
  ) {}
  bind(...args: unknown[]): ShimStatement {
    return new ShimStatement(this.owner, this.sql, args as Value[]);
  }
  rows(): unknown[] {
    const s = this.owner.statement(this.sql);
    if (/^\s*(SELECT|WITH)/i.test(this.sql)) return s.all(...this.args);
    s.run(...this.args);
    return [];
  }
  async first<T>(): Promise<T | null> {
    this.owner.record(this.sql, this.args);
    return (this.owner.statement(this.sql).get(...this.args) as T | undefined) ?? null;
  }
  async all<T>(): Promise<{ results: T[] }> {
    this.owner.record(this.sql, this.args);
    return { results: this.owner.statement(this.sql).all(...this.args) as T[] };
  }
  /** Rows as arrays of column values (drizzle's d1 driver reads selects this way). */
  async raw<T = unknown[]>(): Promise<T[]> {
    this.owner.record(this.sql, this.args);
    return (this.owner.statement(this.sql).all(...this.args) as Record<string, unknown>[]).map((row) => Object.values(row) as T);
  }
  async run(): Promise<{ success: true }> {
    this.owner.statement(this.sql).run(...this.args);
    return { success: true };
  }
}

/** An organization's data on one SQLite-backed database standing in for both control and shard (Node benches and unit tests). */
export function sqliteOrgData(d1: SqliteD1, orgId: string, bindings: Record<string, unknown> = {}): OrgData {
  const db = d1 as unknown as D1Database;
  const env = { DB: db, SHARD_0: db, DATA_SHARDS: "SHARD_0", ...bindings } as unknown as Env;
  return orgData(env, { orgId, shard: "SHARD_0", movingTo: null });
}
