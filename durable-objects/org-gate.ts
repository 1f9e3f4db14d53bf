// OrgGate: one Durable Object per organization that owns its rate-limit windows
// and its concurrency slots. Being single-threaded per org, it counts exactly
// without locks; counters live in its SQLite storage so an eviction loses nothing.
// Every call names the org, which the object checks against its owner (owner.ts).
import { DurableObject } from "cloudflare:workers";
import { claimFor } from "./owner";

export interface BucketRequest {
  /** Bucket name, e.g. "api" or "chat:<keyId>". */
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface BucketState {
  name: string;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  reset: number;
}

export interface ConsumeResult {
  allowed: boolean;
  buckets: BucketState[];
  /** Seconds until the first exhausted bucket resets (when not allowed). */
  retryAfter: number;
}

export type SlotResult =
  | { acquired: true; expiresAt: number; inUse: number; limit: number }
  | { acquired: false; retryAfter: number; inUse: number; limit: number };

export class OrgGate extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS windows (
      bucket TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS slots (
      kind TEXT NOT NULL, holder TEXT NOT NULL, expires_at INTEGER NOT NULL,
      PRIMARY KEY (kind, holder))`);
  }

  /**
   * Counts one request against every bucket, or against none when any bucket is
   * exhausted: a refused request does not use up another bucket's allowance.
   * Windows are fixed and aligned to the epoch, so X-RateLimit-Reset is exact.
   */
  async consume(orgId: string, requests: BucketRequest[], nowMs: number = Date.now()): Promise<ConsumeResult> {
    await claimFor(this.ctx.storage, orgId);
    const states = requests.map((r) => {
      const windowMs = r.windowSeconds * 1000;
      const windowStart = Math.floor(nowMs / windowMs) * windowMs;
      const row = this.sql
        .exec<{ window_start: number; count: number }>(
          "SELECT window_start, count FROM windows WHERE bucket = ?",
          r.name,
        )
        .toArray()[0];
      const used = row && row.window_start === windowStart ? row.count : 0;
      return { r, windowStart, used, reset: (windowStart + windowMs) / 1000 };
    });
    const exhausted = states.filter((s) => s.used >= s.r.limit);
    const allowed = exhausted.length === 0;
    if (allowed) {
      for (const s of states) {
        this.sql.exec(
          `INSERT INTO windows (bucket, window_start, count) VALUES (?, ?, 1)
           ON CONFLICT(bucket) DO UPDATE SET window_start = excluded.window_start,
             count = CASE WHEN windows.window_start = excluded.window_start THEN windows.count + 1 ELSE 1 END`,
          s.r.name,
          s.windowStart,
        );
        s.used += 1;
      }
    }
    const nowSec = nowMs / 1000;
    return {
      allowed,
      buckets: states.map((s) => ({
        name: s.r.name,
        limit: s.r.limit,
        remaining: Math.max(0, s.r.limit - s.used),
        reset: s.reset,
      })),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil(Math.min(...exhausted.map((s) => s.reset)) - nowSec)),
    };
  }

  /**
   * Takes (or renews, for the same holder) one of `limit` slots of a kind for
   * `leaseMs`. A holder that dies without releasing frees its slot at expiry.
   */
  async acquireSlot(orgId: string, kind: string, holder: string, limit: number, leaseMs: number, nowMs: number = Date.now()): Promise<SlotResult> {
    await claimFor(this.ctx.storage, orgId);
    this.sql.exec("DELETE FROM slots WHERE kind = ? AND expires_at <= ?", kind, nowMs);
    const held = this.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM slots WHERE kind = ? AND holder = ?", kind, holder)
      .one().n;
    const inUse = this.countSlots(kind);
    if (!held && inUse >= limit) {
      const next = this.sql
        .exec<{ t: number }>("SELECT MIN(expires_at) AS t FROM slots WHERE kind = ?", kind)
        .one().t;
      return { acquired: false, retryAfter: Math.max(1, Math.ceil((next - nowMs) / 1000)), inUse, limit };
    }
    const expiresAt = nowMs + leaseMs;
    this.sql.exec(
      `INSERT INTO slots (kind, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT(kind, holder) DO UPDATE SET expires_at = excluded.expires_at`,
      kind,
      holder,
      expiresAt,
    );
    return { acquired: true, expiresAt, inUse: held ? inUse : inUse + 1, limit };
  }

  /** Releases a slot; returns whether the holder had one. */
  async releaseSlot(orgId: string, kind: string, holder: string): Promise<boolean> {
    await claimFor(this.ctx.storage, orgId);
    const cursor = this.sql.exec("DELETE FROM slots WHERE kind = ? AND holder = ?", kind, holder);
    return cursor.rowsWritten > 0;
  }

  /**
   * Takes exclusive leases on all of `keys` for `holder`, or none of them: nobody holds some
   * while waiting for others, so callers needing several can never deadlock.
   */
  async acquireLeases(orgId: string, keys: string[], holder: string, leaseMs: number, nowMs: number = Date.now()): Promise<{ acquired: boolean }> {
    await claimFor(this.ctx.storage, orgId);
    const kinds = keys.map((k) => `lease:${k}`);
    for (const kind of kinds) {
      this.sql.exec("DELETE FROM slots WHERE kind = ? AND expires_at <= ?", kind, nowMs);
      const other = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM slots WHERE kind = ? AND holder != ?", kind, holder).one().n;
      if (other > 0) return { acquired: false };
    }
    for (const kind of kinds) {
      this.sql.exec(
        `INSERT INTO slots (kind, holder, expires_at) VALUES (?, ?, ?)
         ON CONFLICT(kind, holder) DO UPDATE SET expires_at = excluded.expires_at`,
        kind,
        holder,
        nowMs + leaseMs,
      );
    }
    return { acquired: true };
  }

  async releaseLeases(orgId: string, keys: string[], holder: string): Promise<void> {
    await claimFor(this.ctx.storage, orgId);
    for (const k of keys) this.sql.exec("DELETE FROM slots WHERE kind = ? AND holder = ?", `lease:${k}`, holder);
  }

  async slotsInUse(orgId: string, kind: string, nowMs: number = Date.now()): Promise<number> {
    await claimFor(this.ctx.storage, orgId);
    this.sql.exec("DELETE FROM slots WHERE kind = ? AND expires_at <= ?", kind, nowMs);
    return this.countSlots(kind);
  }

  private countSlots(kind: string): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM slots WHERE kind = ?", kind).one().n;
  }
}
