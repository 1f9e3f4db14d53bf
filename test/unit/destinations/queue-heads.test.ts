// The per_key queue's heads (each key's first pending message) on the SQLite a Durable Object
// runs: the same messages as the definition (lowest seq per key among queued and in-flight), read
// key by key through the pending index, never by reading every pending row (EXPLAIN QUERY PLAN).
import { describe, expect, it } from "vitest";
import { PER_KEY_HEADS, QueueStore } from "../../../src/features/destinations/queue-store";
import { sqliteSqlStorage } from "../../support/sqlite-sql-storage";

const NOW = Date.parse("2026-12-04T10:00:00Z");
const ok = { ok: true };
const failed = { ok: false, failure: { class: "refused" as const, message: "refused" } };

/** A queue of `n` messages over `keys` keys, some delivered, some dead, some waiting for a retry. */
function filledQueue(n: number, keys: number) {
  const sql = sqliteSqlStorage();
  const store = new QueueStore(sql);
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const messages = Array.from({ length: n }, (_, i) => ({ id: `m${i}`, key: `k${Math.floor(random() * keys)}`, body: `body ${i}` }));
  store.enqueue(messages, NOW - 60_000);
  for (const m of messages) {
    const r = random();
    if (r > 0.5) continue;
    const attempt = { number: store.begin(m.id, NOW - 50_000), started_at: new Date(NOW - 50_000).toISOString(), duration_ms: 5 };
    if (r < 0.3) store.settle(m.id, { ...attempt, result: ok }, { state: "delivered" }, NOW - 40_000);
    else if (r < 0.35) store.settle(m.id, { ...attempt, result: failed }, { state: "dead" }, NOW - 40_000);
    else if (r < 0.45) store.settle(m.id, { ...attempt, result: failed }, { state: "queued", retryAt: NOW + Math.floor(random() * 60_000) - 30_000 }, NOW - 40_000);
    // else: left in flight, as by an instance that died mid-attempt.
  }
  return { sql, store };
}

/** The definition: each key's lowest-seq pending message, by reading every row. */
function headsByDefinition(sql: ReturnType<typeof sqliteSqlStorage>) {
  const pending = sql.db.prepare("SELECT seq, id, key, next_attempt_at FROM messages WHERE state IN ('queued', 'in_flight') ORDER BY seq").all() as { seq: number; id: string; key: string; next_attempt_at: number }[];
  const heads = new Map<string, (typeof pending)[number]>();
  for (const m of pending) if (!heads.has(m.key)) heads.set(m.key, m);
  return [...heads.values()].sort((a, b) => a.seq - b.seq);
}

describe("per_key queue heads", () => {
  it("are each key's first pending message, due now, in seq order; the next due time is theirs", () => {
    const { sql, store } = filledQueue(3_000, 64);
    const heads = headsByDefinition(sql);
    const due = heads.filter((h) => h.next_attempt_at <= NOW);
    expect(due.length).toBeGreaterThan(10);
    expect(heads.length).toBeGreaterThan(due.length);
    expect(store.due(true, NOW, 1_000, new Set()).map((m) => m.id)).toEqual(due.map((h) => h.id));
    expect(store.due(true, NOW, 5, new Set([due[0]!.id])).map((m) => m.id)).toEqual(due.slice(1, 6).map((h) => h.id));
    expect(store.nextDueAt(true)).toBe(Math.min(...heads.map((h) => h.next_attempt_at)));
  });

  it("an empty queue has no head and no due time", () => {
    const store = new QueueStore(sqliteSqlStorage());
    expect(store.due(true, NOW, 16, new Set())).toEqual([]);
    expect(store.nextDueAt(true)).toBeNull();
  });

  it("are read through the pending index key by key, with no scan and no grouping of the messages", () => {
    const { sql } = filledQueue(2_000, 64);
    sql.db.exec("ANALYZE");
    const plan = (sql.db.prepare(`EXPLAIN QUERY PLAN ${PER_KEY_HEADS} WHERE m.next_attempt_at <= ? ORDER BY m.seq LIMIT ?`).all(NOW, 16) as { detail: string }[]).map((r) => r.detail);
    expect(plan.some((line) => line.includes("INDEX messages_pending (state=? AND key=?)"))).toBe(true);
    expect(plan.filter((line) => /^SCAN (m|messages)\b/.test(line) || /GROUP BY/.test(line))).toEqual([]);
  });
});
