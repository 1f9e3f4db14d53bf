// One destination's queue in its Durable Object's SQLite: the messages in arrival order (seq),
// each attempt, and per-minute tallies for throughput and lag. A message leaves the pending set
// only as delivered, dead or skipped; everything is on disk, so 100,000 waiting messages cost
// storage, not memory (every read is bounded by LIMIT). Times are epoch milliseconds.
import type { Attempt, AttemptResult, MessageState, OutboundMessage, QueuedMessage } from "./model";

/** Settled messages (delivered, skipped) are kept this long for the message browser; dead ones until an operator acts. */
export const SETTLED_RETENTION_MS = 7 * 24 * 3_600_000;
/** Minutes of tallies kept: the figures look back an hour, the hourly activity a day. */
const TALLY_MINUTES = 24 * 60;

const PENDING = "state IN ('queued', 'in_flight')";

/**
 * Each key's first pending message (per_key ordering), found key by key: the next key after the
 * last, then its lowest seq, each a seek of messages_pending (state, key, seq). So a batch costs
 * O(keys · log n), where a GROUP BY over the pending rows read every one of them: with 64 keys,
 * 0.15–0.23 ms at 20,000 and at 100,000 messages against 4–6 and 14–28 ms (node:sqlite, the
 * test's schema; docs/destinations.md).
 */
export const PER_KEY_HEADS = `WITH RECURSIVE keys(key) AS (
    SELECT MIN(key) FROM messages WHERE ${PENDING}
    UNION ALL
    SELECT (SELECT MIN(key) FROM messages WHERE ${PENDING} AND key > keys.key) FROM keys WHERE keys.key IS NOT NULL
  )
  SELECT m.* FROM keys JOIN messages m ON m.seq = (SELECT MIN(seq) FROM messages WHERE ${PENDING} AND key = keys.key)`;

type Row = {
  seq: number;
  id: string;
  key: string;
  state: string;
  body: string;
  content_type: string | null;
  headers: string;
  path: string | null;
  method: string | null;
  source: string | null;
  label: string | null;
  enqueued_at: number;
  attempts: number;
  reprocessed: number;
  first_attempt_at: number | null;
  next_attempt_at: number;
  delivered_at: number | null;
  last_result: string | null;
};

/** Rows a RETURNING statement touched (rowsWritten counts index writes too). */
const rows = (cursor: SqlStorageCursor<Record<string, SqlStorageValue>>) => cursor.toArray().length;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toMessage(r: Row): QueuedMessage {
  return {
    id: r.id,
    seq: r.seq,
    key: r.key,
    state: r.state as MessageState,
    body: r.body,
    content_type: r.content_type,
    headers: JSON.parse(r.headers) as Record<string, string>,
    path: r.path,
    method: r.method,
    source: r.source ? (JSON.parse(r.source) as QueuedMessage["source"]) : null,
    label: r.label,
    enqueued_at: iso(r.enqueued_at) as string,
    attempts: r.attempts,
    reprocessed: r.reprocessed,
    first_attempt_at: iso(r.first_attempt_at),
    next_attempt_at: r.state === "queued" || r.state === "in_flight" ? iso(r.next_attempt_at) : null,
    delivered_at: iso(r.delivered_at),
    last_result: r.last_result ? (JSON.parse(r.last_result) as AttemptResult) : null,
  };
}

export interface QueueFigures {
  depth: number;
  in_flight: number;
  dead: number;
  delivered_retained: number;
  oldest_pending_at: string | null;
  /** Over the last 1, 15 and 60 minutes. */
  delivered: { m1: number; m15: number; m60: number };
  failed_attempts: { m1: number; m15: number; m60: number };
  /** Mean time from enqueue to delivery of the messages delivered in the last 15 minutes. */
  mean_lag_ms_15m: number | null;
  max_lag_ms_15m: number | null;
  last_delivered_at: string | null;
  /** The latest attempt that failed, while the head of the queue is still failing. */
  failing_since: string | null;
  last_failure: NonNullable<AttemptResult["failure"]> | null;
}

/** One UTC hour of a queue's activity (`hour`: its start, epoch ms). */
export interface HourActivity {
  hour: number;
  /** Messages enqueued in the hour (a reprocessed message arrives again). */
  received: number;
  /** Of those, the ones still waiting (queued or in flight). */
  queued: number;
  /** Deliveries that succeeded in the hour. */
  sent: number;
  /** Attempts that failed in the hour (each retry counts). */
  errored: number;
}

export interface MessageQuery {
  state?: MessageState;
  label?: string;
  key?: string;
  /** Messages enqueued at or after this time (epoch ms). */
  since?: number;
  limit: number;
  /** The seq to continue below (newest first). */
  before?: number;
}

export class QueueStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, key TEXT NOT NULL, state TEXT NOT NULL,
      body TEXT NOT NULL, content_type TEXT, headers TEXT NOT NULL, path TEXT, method TEXT, source TEXT, label TEXT,
      enqueued_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, first_attempt_at INTEGER,
      next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, settled_at INTEGER, last_result TEXT,
      reprocessed INTEGER NOT NULL DEFAULT 0)`);
    // Queues made before reprocess rounds were counted lack the column.
    if (!sql.exec("SELECT 1 FROM pragma_table_info('messages') WHERE name = 'reprocessed'").toArray().length) sql.exec("ALTER TABLE messages ADD COLUMN reprocessed INTEGER NOT NULL DEFAULT 0");
    sql.exec("CREATE INDEX IF NOT EXISTS messages_pending ON messages (state, key, seq)");
    sql.exec("CREATE INDEX IF NOT EXISTS messages_settled ON messages (settled_at)");
    // The figures read the oldest pending message and the latest delivery through these, not a scan.
    sql.exec("CREATE INDEX IF NOT EXISTS messages_state_seq ON messages (state, seq)");
    sql.exec("CREATE INDEX IF NOT EXISTS messages_delivered ON messages (delivered_at)");
    // The hourly activity (received per hour) reads the last day's arrivals through this.
    sql.exec("CREATE INDEX IF NOT EXISTS messages_enqueued ON messages (enqueued_at)");
    sql.exec(`CREATE TABLE IF NOT EXISTS attempts (
      message_id TEXT NOT NULL, number INTEGER NOT NULL, started_at INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
      result TEXT NOT NULL, PRIMARY KEY (message_id, number))`);
    sql.exec(`CREATE TABLE IF NOT EXISTS tallies (
      minute INTEGER PRIMARY KEY, delivered INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
      lag_sum INTEGER NOT NULL DEFAULT 0, lag_max INTEGER NOT NULL DEFAULT 0)`);
  }

  /** Adds messages at the tail; an id already held is skipped (answered in `duplicates`). */
  enqueue(messages: readonly (OutboundMessage & { id: string })[], now: number): { ids: string[]; duplicates: string[] } {
    const duplicates: string[] = [];
    for (const m of messages) {
      const cursor = this.sql.exec(
        `INSERT INTO messages (id, key, state, body, content_type, headers, path, method, source, label, enqueued_at, next_attempt_at)
         VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING seq`,
        m.id,
        m.key ?? "",
        m.body,
        m.content_type ?? null,
        JSON.stringify(m.headers ?? {}),
        m.path ?? null,
        m.method ?? null,
        m.source ? JSON.stringify(m.source) : null,
        m.label ?? null,
        now,
        now,
      );
      if (cursor.toArray().length === 0) duplicates.push(m.id);
    }
    return { ids: messages.map((m) => m.id), duplicates };
  }

  /**
   * The messages to attempt now: the head of the queue (fifo), or the head of each key (per_key)
   * up to `limit`, whose retry time has come and that are not already in flight in this
   * invocation (`busy`). A message left in_flight by an instance that died is a head like any other.
   */
  due(perKey: boolean, now: number, limit: number, busy: ReadonlySet<string>): QueuedMessage[] {
    const heads = perKey
      ? this.sql.exec<Row>(
          `${PER_KEY_HEADS} WHERE m.next_attempt_at <= ? ORDER BY m.seq LIMIT ?`,
          now,
          limit + busy.size,
        )
      : [this.head()].filter((r): r is Row => r !== undefined);
    return (Array.isArray(heads) ? heads : heads.toArray())
      .filter((r) => r.next_attempt_at <= now && !busy.has(r.id))
      .slice(0, limit)
      .map(toMessage);
  }

  /** When the earliest waiting head is due (epoch ms), or null when nothing waits. */
  nextDueAt(perKey: boolean): number | null {
    const row = perKey
      ? this.sql.exec<{ at: number | null }>(`SELECT MIN(next_attempt_at) AS at FROM (${PER_KEY_HEADS})`).one()
      : { at: this.head()?.next_attempt_at ?? null };
    return row?.at ?? null;
  }

  /** Marks an attempt as started: if the instance dies now, the message is still pending and is tried again. */
  begin(id: string, now: number): number {
    const row = this.sql
      .exec<{ attempts: number }>(
        "UPDATE messages SET state = 'in_flight', attempts = attempts + 1, first_attempt_at = COALESCE(first_attempt_at, ?) WHERE id = ? AND state IN ('queued', 'in_flight') RETURNING attempts",
        now,
        id,
      )
      .toArray()[0];
    return row?.attempts ?? 0;
  }

  /**
   * Records an attempt and what follows: delivered, dead, or queued again at `retryAt`. A message
   * an operator settled meanwhile (skipped, purged) keeps its state; the attempt is still recorded.
   */
  settle(id: string, attempt: Omit<Attempt, "message_id">, next: { state: "delivered" | "dead" } | { state: "queued"; retryAt: number }, now: number): void {
    this.sql.exec("INSERT OR REPLACE INTO attempts (message_id, number, started_at, duration_ms, result) VALUES (?, ?, ?, ?, ?)", id, attempt.number, Date.parse(attempt.started_at), attempt.duration_ms, JSON.stringify(attempt.result));
    const result = JSON.stringify(attempt.result);
    if (next.state === "queued") {
      this.sql.exec("UPDATE messages SET state = 'queued', next_attempt_at = ?, last_result = ? WHERE id = ? AND state = 'in_flight'", next.retryAt, result, id);
    } else {
      const delivered = next.state === "delivered" ? now : null;
      this.sql.exec("UPDATE messages SET state = ?, delivered_at = ?, settled_at = ?, last_result = ? WHERE id = ? AND state = 'in_flight'", next.state, delivered, now, result, id);
    }
    const enqueued = this.sql.exec<{ enqueued_at: number }>("SELECT enqueued_at FROM messages WHERE id = ?", id).toArray()[0]?.enqueued_at ?? now;
    this.tally(now, next.state === "delivered" ? now - enqueued : null);
  }

  private tally(now: number, lag: number | null): void {
    const minute = Math.floor(now / 60_000);
    if (lag === null) this.sql.exec("INSERT INTO tallies (minute, failed) VALUES (?, 1) ON CONFLICT (minute) DO UPDATE SET failed = failed + 1", minute);
    else
      this.sql.exec(
        "INSERT INTO tallies (minute, delivered, lag_sum, lag_max) VALUES (?, 1, ?, ?) ON CONFLICT (minute) DO UPDATE SET delivered = delivered + 1, lag_sum = lag_sum + excluded.lag_sum, lag_max = MAX(lag_max, excluded.lag_max)",
        minute,
        lag,
        lag,
      );
  }

  /** The first pending message: the lower seq of the first queued and the first in flight (each an index lookup). */
  private head(): Row | undefined {
    const first = (state: string) => this.sql.exec<Row>("SELECT * FROM messages WHERE state = ? ORDER BY seq LIMIT 1", state).toArray()[0];
    const [queued, inFlight] = [first("queued"), first("in_flight")];
    if (!queued || !inFlight) return queued ?? inFlight;
    return queued.seq < inFlight.seq ? queued : inFlight;
  }

  figures(now: number): QueueFigures {
    const counts = new Map(this.sql.exec<{ state: string; n: number }>("SELECT state, COUNT(*) AS n FROM messages GROUP BY state").toArray().map((r) => [r.state, r.n]));
    const head = this.head();
    const oldest = head?.enqueued_at ?? null;
    const minute = Math.floor(now / 60_000);
    const window = (minutes: number) =>
      this.sql.exec<{ d: number | null; f: number | null; lag: number | null; max: number | null }>("SELECT SUM(delivered) AS d, SUM(failed) AS f, SUM(lag_sum) AS lag, MAX(lag_max) AS max FROM tallies WHERE minute > ?", minute - minutes).one();
    const [w1, w15, w60] = [window(1), window(15), window(60)];
    const lastDelivered = this.sql.exec<{ at: number | null }>("SELECT MAX(delivered_at) AS at FROM messages").one().at;
    const headFailure = head?.last_result ? (JSON.parse(head.last_result) as AttemptResult) : null;
    const failingSince = head && headFailure && !headFailure.ok ? this.sql.exec<{ at: number }>("SELECT MIN(started_at) AS at FROM attempts WHERE message_id = ?", head.id).one().at : null;
    return {
      depth: (counts.get("queued") ?? 0) + (counts.get("in_flight") ?? 0),
      in_flight: counts.get("in_flight") ?? 0,
      dead: counts.get("dead") ?? 0,
      delivered_retained: counts.get("delivered") ?? 0,
      oldest_pending_at: iso(oldest),
      delivered: { m1: w1.d ?? 0, m15: w15.d ?? 0, m60: w60.d ?? 0 },
      failed_attempts: { m1: w1.f ?? 0, m15: w15.f ?? 0, m60: w60.f ?? 0 },
      mean_lag_ms_15m: w15.d ? Math.round((w15.lag ?? 0) / w15.d) : null,
      max_lag_ms_15m: w15.d ? (w15.max ?? 0) : null,
      last_delivered_at: iso(lastDelivered),
      failing_since: iso(failingSince),
      last_failure: failingSince !== null ? (headFailure?.failure ?? null) : null,
    };
  }

  /**
   * The hours since `from` (epoch ms) that saw activity, oldest first: arrivals from the messages
   * (an index range of enqueued_at), deliveries and failed attempts from the per-minute tallies
   * (kept a day). Messages purged meanwhile are no longer counted as received.
   */
  hourly(from: number): HourActivity[] {
    const hours = new Map<number, HourActivity>();
    const at = (hour: number) => {
      const found = hours.get(hour);
      if (found) return found;
      const h = { hour, received: 0, queued: 0, sent: 0, errored: 0 };
      hours.set(hour, h);
      return h;
    };
    const arrivals = this.sql.exec<{ h: number; received: number; queued: number }>(
      `SELECT (enqueued_at / 3600000) * 3600000 AS h, COUNT(*) AS received, SUM(${PENDING}) AS queued FROM messages WHERE enqueued_at >= ? GROUP BY h`,
      from,
    );
    for (const r of arrivals) Object.assign(at(r.h), { received: r.received, queued: r.queued });
    const outcomes = this.sql.exec<{ h: number; sent: number; errored: number }>(
      "SELECT (minute / 60) * 3600000 AS h, SUM(delivered) AS sent, SUM(failed) AS errored FROM tallies WHERE minute >= ? GROUP BY h",
      Math.floor(from / 60_000),
    );
    for (const r of outcomes) Object.assign(at(r.h), { sent: r.sent, errored: r.errored });
    return [...hours.values()].sort((a, b) => a.hour - b.hour);
  }

  list(q: MessageQuery): QueuedMessage[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.state) where.push("state = ?") && args.push(q.state);
    if (q.label) where.push("label = ?") && args.push(q.label);
    if (q.key !== undefined) where.push("key = ?") && args.push(q.key);
    if (q.since !== undefined) where.push("enqueued_at >= ?") && args.push(q.since);
    if (q.before !== undefined) where.push("seq < ?") && args.push(q.before);
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    return this.sql.exec<Row>(`SELECT * FROM messages ${clause} ORDER BY seq DESC LIMIT ?`, ...args, q.limit).toArray().map(toMessage);
  }

  get(id: string): QueuedMessage | undefined {
    const row = this.sql.exec<Row>("SELECT * FROM messages WHERE id = ?", id).toArray()[0];
    return row ? toMessage(row) : undefined;
  }

  attempts(id: string): Attempt[] {
    return this.sql
      .exec<{ number: number; started_at: number; duration_ms: number; result: string }>("SELECT number, started_at, duration_ms, result FROM attempts WHERE message_id = ? ORDER BY number", id)
      .toArray()
      .map((a) => ({ message_id: id, number: a.number, started_at: iso(a.started_at) as string, duration_ms: a.duration_ms, result: JSON.parse(a.result) as AttemptResult }));
  }

  /** Pending messages (all, or the ids named) become due now. */
  retryNow(ids: readonly string[] | undefined, now: number): number {
    if (ids) return ids.reduce((n, id) => n + rows(this.sql.exec(`UPDATE messages SET next_attempt_at = ? WHERE id = ? AND ${PENDING} RETURNING seq`, now, id)), 0);
    return rows(this.sql.exec(`UPDATE messages SET next_attempt_at = ? WHERE ${PENDING} RETURNING seq`, now));
  }

  /** A pending (or dead) message is set aside unsent: the queue moves on to the next. */
  skip(id: string, now: number): boolean {
    return rows(this.sql.exec("UPDATE messages SET state = 'skipped', settled_at = ? WHERE id = ? AND state IN ('queued', 'in_flight', 'dead') RETURNING seq", now, id)) > 0;
  }

  /**
   * Settled messages (the ids named, or every dead one) are queued again at the tail, with their
   * delivery id kept (a receiver that took one already de-duplicates it) and a fresh retry horizon;
   * `reprocessed` counts the rounds (a bridge delivers a delivery id of a higher round again).
   */
  reprocess(ids: readonly string[] | undefined, now: number): number {
    const targets = ids ?? this.sql.exec<{ id: string }>("SELECT id FROM messages WHERE state = 'dead' ORDER BY seq").toArray().map((r) => r.id);
    let n = 0;
    for (const id of targets) {
      const row = this.sql.exec<Row>("SELECT * FROM messages WHERE id = ? AND state IN ('dead', 'skipped', 'delivered')", id).toArray()[0];
      if (!row) continue;
      // A new seq puts it at the tail, behind what was queued meanwhile; its attempts stay on record.
      this.sql.exec("DELETE FROM messages WHERE seq = ?", row.seq);
      this.sql.exec(
        `INSERT INTO messages (id, key, state, body, content_type, headers, path, method, source, label, enqueued_at, attempts, next_attempt_at, last_result, reprocessed)
         VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        row.id,
        row.key,
        row.body,
        row.content_type,
        row.headers,
        row.path,
        row.method,
        row.source,
        row.label,
        now,
        row.attempts,
        now,
        row.last_result,
        row.reprocessed + 1,
      );
      n++;
    }
    return n;
  }

  /** Deletes messages in `states` (never in flight), with their attempts. */
  purge(states: readonly ("queued" | "dead" | "delivered" | "skipped")[]): number {
    if (!states.length) return 0;
    const marks = states.map(() => "?").join(", ");
    this.sql.exec(`DELETE FROM attempts WHERE message_id IN (SELECT id FROM messages WHERE state IN (${marks}))`, ...states);
    return rows(this.sql.exec(`DELETE FROM messages WHERE state IN (${marks}) RETURNING seq`, ...states));
  }

  /** Forgets settled messages past retention and old tallies (called as the queue works). */
  prune(now: number): void {
    const cutoff = now - SETTLED_RETENTION_MS;
    this.sql.exec("DELETE FROM attempts WHERE message_id IN (SELECT id FROM messages WHERE state IN ('delivered', 'skipped') AND settled_at < ?)", cutoff);
    this.sql.exec("DELETE FROM messages WHERE state IN ('delivered', 'skipped') AND settled_at < ?", cutoff);
    this.sql.exec("DELETE FROM tallies WHERE minute < ?", Math.floor(now / 60_000) - TALLY_MINUTES);
  }
}
