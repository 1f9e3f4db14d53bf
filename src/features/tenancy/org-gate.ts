// OrgGate: one Durable Object per organization that owns its rate-limit windows
// and its concurrency slots. Being single-threaded per org, it counts exactly
// without locks; counters live in its SQLite storage so an eviction loses nothing.
// Every call names the org, which the object checks against its owner (owner.ts).
import { DurableObject } from "cloudflare:workers";
import { claimFor } from "../../platform/durable-objects/owner";
import { expectedRemainingMs } from "./limits/slot-wait";

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

/** A bucket an isolate wants a share of: up to `want` requests of the window, and what it gives back. */
export interface LeaseRequest extends BucketRequest {
  want: number;
  /** Requests of an earlier share of this window the isolate will not spend (limits/leases.ts). */
  returned?: { windowStart: number; count: number };
}

export interface LeaseResult extends ConsumeResult {
  /** Per bucket, in the order asked: how many requests it was granted (0 when refused). */
  granted: number[];
  /** Start (epoch ms) of the window the grants belong to, per bucket. */
  windowStarts: number[];
}

export interface GateUsage {
  /** Per bucket asked: requests granted in the current window, and when it ends (Unix seconds). */
  windows: { name: string; used: number; reset: number }[];
  slots: { kind: string; inUse: number }[];
}

/** Of what is left of a window, the most one grant takes, so late isolates still find some. */
const GRANT_FRACTION_OF_REMAINING = 1 / 4;

export type SlotResult =
  | { acquired: true; expiresAt: number; inUse: number; limit: number }
  | { acquired: false; retryAfter: number; inUse: number; limit: number };

/** Hold times kept per kind (the most recent), from which a refused slot's Retry-After is estimated. */
const HOLD_SAMPLES = 32;

export class OrgGate extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS windows (
      bucket TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS slots (
      kind TEXT NOT NULL, holder TEXT NOT NULL, expires_at INTEGER NOT NULL, acquired_at INTEGER,
      PRIMARY KEY (kind, holder))`);
    // Objects created before acquired_at existed get the column (rows without it are ignored).
    try {
      this.sql.exec("ALTER TABLE slots ADD COLUMN acquired_at INTEGER");
    } catch {}
    // How long slots of each kind were held, learned from releases (for Retry-After): the last
    // HOLD_SAMPLES hold times as a JSON array. Objects that kept only a moving mean (slot_holds)
    // start from it as one sample.
    this.sql.exec("CREATE TABLE IF NOT EXISTS slot_hold_samples (kind TEXT PRIMARY KEY, held_ms TEXT NOT NULL)");
    if (this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'slot_holds'").toArray().length) {
      this.sql.exec("INSERT OR IGNORE INTO slot_hold_samples (kind, held_ms) SELECT kind, json_array(mean_ms) FROM slot_holds");
      this.sql.exec("DROP TABLE slot_holds");
    }
  }

  /** Counts one request against every bucket, or against none when any bucket is exhausted. */
  async consume(orgId: string, requests: BucketRequest[], nowMs: number = Date.now()): Promise<ConsumeResult> {
    const { allowed, buckets, retryAfter } = await this.lease(orgId, requests.map((r) => ({ ...r, want: 1 })), nowMs);
    return { allowed, buckets, retryAfter };
  }

  /**
   * Grants a share of every bucket's window, or of none when any bucket is exhausted: a refused
   * request does not use up another bucket's allowance. A bucket's count is what was granted,
   * so the requests admitted in a window never exceed its limit, however the isolates spend
   * their shares. A grant is at most `want` and at most a quarter of what is left (at least one).
   * Windows are fixed and aligned to the epoch, so X-RateLimit-Reset is exact.
   */
  async lease(orgId: string, requests: LeaseRequest[], nowMs: number = Date.now()): Promise<LeaseResult> {
    await claimFor(this.ctx.storage, orgId);
    const states = requests.map((r) => {
      const windowMs = r.windowSeconds * 1000;
      const windowStart = Math.floor(nowMs / windowMs) * windowMs;
      const row = this.sql.exec<{ window_start: number; count: number }>("SELECT window_start, count FROM windows WHERE bucket = ?", r.name).toArray()[0];
      let used = row && row.window_start === windowStart ? row.count : 0;
      // Unspent requests of this window come back (those of an older window lapsed with it).
      if (r.returned && r.returned.windowStart === windowStart) used -= Math.min(used, Math.max(0, Math.floor(r.returned.count)));
      return { r, windowStart, used, granted: 0, reset: (windowStart + windowMs) / 1000 };
    });
    const exhausted = states.filter((s) => s.used >= s.r.limit);
    const allowed = exhausted.length === 0;
    for (const s of states) {
      if (allowed) {
        const left = s.r.limit - s.used;
        s.granted = Math.min(Math.max(1, Math.floor(s.r.want)), left, Math.max(1, Math.floor(left * GRANT_FRACTION_OF_REMAINING)));
        s.used += s.granted;
      }
      this.sql.exec(
        `INSERT INTO windows (bucket, window_start, count) VALUES (?, ?, ?)
         ON CONFLICT(bucket) DO UPDATE SET window_start = excluded.window_start, count = excluded.count`,
        s.r.name,
        s.windowStart,
        s.used,
      );
    }
    const nowSec = nowMs / 1000;
    return {
      allowed,
      buckets: states.map((s) => ({ name: s.r.name, limit: s.r.limit, remaining: Math.max(0, s.r.limit - s.used), reset: s.reset })),
      granted: states.map((s) => s.granted),
      windowStarts: states.map((s) => s.windowStart),
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
    if (!held && inUse >= limit) return { acquired: false, retryAfter: this.secondsUntilSlotFrees(kind, nowMs), inUse, limit };
    const expiresAt = nowMs + leaseMs;
    this.sql.exec(
      `INSERT INTO slots (kind, holder, expires_at, acquired_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(kind, holder) DO UPDATE SET expires_at = excluded.expires_at`,
      kind,
      holder,
      expiresAt,
      nowMs,
    );
    return { acquired: true, expiresAt, inUse: held ? inUse : inUse + 1, limit };
  }

  /** Releases a slot; returns whether the holder had one. */
  async releaseSlot(orgId: string, kind: string, holder: string, nowMs: number = Date.now()): Promise<boolean> {
    await claimFor(this.ctx.storage, orgId);
    const released = this.sql
      .exec<{ acquired_at: number | null }>("DELETE FROM slots WHERE kind = ? AND holder = ? RETURNING acquired_at", kind, holder)
      .toArray()[0];
    if (released?.acquired_at != null) this.learnHold(kind, nowMs - released.acquired_at);
    return released !== undefined;
  }

  private holdSamples(kind: string): number[] {
    const row = this.sql.exec<{ held_ms: string }>("SELECT held_ms FROM slot_hold_samples WHERE kind = ?", kind).toArray()[0];
    return row ? (JSON.parse(row.held_ms) as number[]) : [];
  }

  /** Keeps one more hold time of the kind (the most recent HOLD_SAMPLES). */
  private learnHold(kind: string, heldMs: number): void {
    const samples = [...this.holdSamples(kind), Math.max(0, heldMs)].slice(-HOLD_SAMPLES);
    this.sql.exec(
      "INSERT INTO slot_hold_samples (kind, held_ms) VALUES (?, ?) ON CONFLICT(kind) DO UPDATE SET held_ms = excluded.held_ms",
      kind,
      JSON.stringify(samples),
    );
  }

  /**
   * Retry-After for a full kind: when its soonest slot is expected to free, i.e. the least of each
   * holder's expected remaining hold (expectedRemainingMs, from when it took its slot: a renewal
   * does not restart its clock), never past the soonest lease expiry (a holder that stopped
   * renewing frees its slot then), at least 1 s.
   */
  private secondsUntilSlotFrees(kind: string, nowMs: number): number {
    const holders = this.sql.exec<{ expires_at: number; acquired_at: number | null }>("SELECT expires_at, acquired_at FROM slots WHERE kind = ?", kind).toArray();
    const holds = this.holdSamples(kind);
    const expected = Math.min(...holders.map((h) => nowMs + expectedRemainingMs(holds, Math.max(0, nowMs - (h.acquired_at ?? nowMs)))));
    const expiry = Math.min(...holders.map((h) => h.expires_at));
    return Math.max(1, Math.ceil((Math.min(expected, expiry) - nowMs) / 1000));
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

  /**
   * What the org uses now, without counting anything: per bucket, the requests granted in its
   * current window (0 once the window has rolled over), and per kind, the slots held.
   */
  async usage(orgId: string, buckets: { name: string; windowSeconds: number }[], kinds: string[], nowMs: number = Date.now()): Promise<GateUsage> {
    await claimFor(this.ctx.storage, orgId);
    const windows = buckets.map((b) => {
      const windowMs = b.windowSeconds * 1000;
      const windowStart = Math.floor(nowMs / windowMs) * windowMs;
      const row = this.sql.exec<{ window_start: number; count: number }>("SELECT window_start, count FROM windows WHERE bucket = ?", b.name).toArray()[0];
      return { name: b.name, used: row && row.window_start === windowStart ? row.count : 0, reset: (windowStart + windowMs) / 1000 };
    });
    const slots = kinds.map((kind) => {
      this.sql.exec("DELETE FROM slots WHERE kind = ? AND expires_at <= ?", kind, nowMs);
      return { kind, inUse: this.countSlots(kind) };
    });
    return { windows, slots };
  }

  private countSlots(kind: string): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM slots WHERE kind = ?", kind).one().n;
  }
}
