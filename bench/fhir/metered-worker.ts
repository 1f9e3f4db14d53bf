// The fhir-http bench's Worker: src/main/entry.ts unchanged, with meters around the bindings its
// requests use (never deployed). Counted per request path, not the queue consumer: OrgGate calls
// (always; a Proxy per stub), audit queue sends (always), and, while metering is on, D1 rows read and written as D1 reports
// them (meta.rows_read / rows_written, also for first() and raw(), which drop meta: see below).
// `/api/__bench/floor?id=` is the floor the bench compares with: one D1 point read, no app. Both
// paths sit under /api/ so that they reach the Worker as the service's own do (wrangler.toml
// [assets] run_worker_first), not the console's assets, and cost the same routing.
// `/api/__bench/meter` answers the counters; `POST /api/__bench/meter?on=1|0` answers them, resets them
// and turns D1 metering on or off (off while throughput is measured: metering re-reads raw() selects).
// `POST /api/__bench/audits?mode=` attributes the audits' cost (bench only, never a deployment's
// behaviour): `stored` (the default: the real consumer), `acked` (deliveries acknowledged unstored:
// the consumer's D1 writes off), `unsent` (AUDIT_QUEUE.send answers at once: no queue either).
import worker from "../../src/main/entry";
import type { Env } from "../../src/platform/env";

export * from "../../src/main/entry";

const counters = { requests: 0, gateCalls: 0, queueSends: 0, queuedMessages: 0, d1Calls: 0, roundTrips: 0, rowsRead: 0, rowsWritten: 0, auditDeliveries: 0, auditMessages: 0, auditMaxMs: 0, auditBatchMaxMs: 0, auditBatchMaxSqlMs: 0, auditRowsWritten: 0 };
let metering = false;
const AUDIT_MODES = ["stored", "acked", "unsent"] as const;
let auditMode: (typeof AUDIT_MODES)[number] = "stored";

/** One statement's meta; `trip`: it was a round trip of its own (not part of a batch). */
function add(meta: D1Meta | undefined, trip = true) {
  counters.d1Calls++;
  if (trip) counters.roundTrips++;
  counters.rowsRead += meta?.rows_read ?? 0;
  counters.rowsWritten += meta?.rows_written ?? 0;
}

const real = new WeakMap<object, D1PreparedStatement>();
const isSelect = (sql: string) => /^\s*(SELECT|WITH)\b/i.test(sql);

function statement(s: D1PreparedStatement, sql: string): D1PreparedStatement {
  const wrapped = {
    bind: (...values: unknown[]) => statement(s.bind(...values), sql),
    all: async () => {
      const r = await s.all();
      if (metering) add(r.meta);
      return r;
    },
    run: async () => {
      const r = await s.run();
      if (metering) add(r.meta);
      return r;
    },
    // first() returns no meta: the same rows through all() (first() adds nothing to the query).
    first: async (column?: string) => {
      if (!metering) return column === undefined ? s.first() : s.first(column);
      const r = await s.all<Record<string, unknown>>();
      add(r.meta);
      const row = r.results[0] ?? null;
      return column === undefined ? row : (row?.[column] ?? null);
    },
    // raw() returns no meta either: a select is read again through all() for it (reads have no
    // side effect); a write runs once through all() and its rows become arrays.
    raw: async (options?: { columnNames?: boolean }) => {
      if (!metering) return s.raw(options as { columnNames: true });
      if (isSelect(sql)) {
        const rows = await s.raw(options as { columnNames: true });
        add((await s.all()).meta);
        return rows;
      }
      const r = await s.all<Record<string, unknown>>();
      add(r.meta);
      const rows = r.results.map((row) => Object.values(row));
      return options?.columnNames ? [Object.keys(r.results[0] ?? {}), ...rows] : rows;
    },
  } as unknown as D1PreparedStatement;
  real.set(wrapped, s);
  return wrapped;
}

function meteredD1<T extends D1Database | D1DatabaseSession>(db: T): T {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql), sql);
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements.map((s) => real.get(s) ?? s));
          if (metering) {
            counters.roundTrips++;
            for (const r of results) add(r.meta, false);
          }
          return results;
        };
      }
      if (prop === "withSession") return (constraint?: string) => meteredD1((target as D1Database).withSession(constraint));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Every method called on a stub of the namespace counts as one OrgGate call. */
function countedNamespace(ns: DurableObjectNamespace): DurableObjectNamespace {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return (...args: Parameters<DurableObjectNamespace["get"]>) => {
        const stub = target.get(...args);
        return new Proxy(stub, {
          get(s, method) {
            const fn = Reflect.get(s, method, s);
            if (typeof fn !== "function" || typeof method !== "string") return fn;
            // Called on the stub itself: an RPC method's own properties (apply, call) are remote names.
            return (...a: unknown[]) => {
              counters.gateCalls++;
              return (s as unknown as Record<string, (...x: unknown[]) => unknown>)[method]!(...a);
            };
          },
        });
      };
    },
  });
}

/**
 * The audit consumer's env: its D1 batches timed (wall ms; the longest is what the requests' reads
 * can wait behind, the shard's writer being single) and their rows written counted.
 */
const timedEnvs = new WeakMap<object, Env>();
function timedBatchesEnv(env: Env): Env {
  let out = timedEnvs.get(env);
  if (!out) {
    const bindings: Record<string, unknown> = { ...env };
    for (const [name, value] of Object.entries(env)) {
      if (!(value && typeof value === "object" && "prepare" in value && "batch" in value && "withSession" in value)) continue;
      const d1 = value as D1Database;
      bindings[name] = new Proxy(d1, {
        get(target, prop) {
          if (prop === "batch") {
            return async (statements: D1PreparedStatement[]) => {
              const t0 = performance.now();
              const results = await target.batch(statements);
              counters.auditBatchMaxMs = Math.max(counters.auditBatchMaxMs, performance.now() - t0);
              // D1's own execution time of the batch's statements: the writer held, without the wait before it.
              counters.auditBatchMaxSqlMs = Math.max(counters.auditBatchMaxSqlMs, results.reduce((ms, r) => ms + (r.meta?.duration ?? 0), 0));
              for (const r of results) counters.auditRowsWritten += r.meta?.rows_written ?? 0;
              return results;
            };
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
    }
    out = bindings as unknown as Env;
    timedEnvs.set(env, out);
  }
  return out;
}

/** The audit queue, its sends counted (each is a call to the queue), answering at once without sending in the `unsent` mode. */
function unsendableQueue(queue: Queue): Queue {
  return new Proxy(queue, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const sending = prop === "send" || prop === "sendBatch";
      return (...args: unknown[]) => {
        // sendBatch takes any iterable: read it once, and hand the queue the same messages.
        if (prop === "sendBatch") args[0] = [...(args[0] as Iterable<unknown>)];
        if (sending) counters.queueSends++;
        // Messages the consumer will be handed (the bench waits for them between rounds); none when unsent.
        if (sending && auditMode !== "unsent") counters.queuedMessages += prop === "send" ? 1 : (args[0] as unknown[]).length;
        return auditMode === "unsent" && sending ? Promise.resolve() : (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

const wrapped = new WeakMap<object, Env>();
function meteredEnv(env: Env): Env {
  let out = wrapped.get(env);
  if (!out) {
    const bindings: Record<string, unknown> = { ...env };
    for (const [name, value] of Object.entries(env)) {
      if (name === "ORG_GATE") bindings[name] = countedNamespace(value as DurableObjectNamespace);
      else if (name === "AUDIT_QUEUE") bindings[name] = unsendableQueue(value as Queue);
      else if (value && typeof value === "object" && "prepare" in value && "batch" in value && "withSession" in value) bindings[name] = meteredD1(value as D1Database);
    }
    out = bindings as unknown as Env;
    wrapped.set(env, out);
  }
  return out;
}

export default {
  ...worker,
  async fetch(request: Request<unknown, IncomingRequestCfProperties>, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/api/__bench/floor") {
      const row = await env.DB.prepare("SELECT id, name FROM organizations WHERE id = ?1").bind(url.searchParams.get("id") ?? "").first();
      return Response.json(row ?? {});
    }
    if (url.pathname === "/api/__bench/meter") {
      const so = { ...counters, metering };
      if (request.method === "POST") {
        for (const k of Object.keys(counters) as (keyof typeof counters)[]) counters[k] = 0;
        metering = url.searchParams.get("on") === "1";
      }
      return Response.json(so);
    }
    if (url.pathname === "/api/__bench/audits" && request.method === "POST") {
      const mode = url.searchParams.get("mode") as (typeof AUDIT_MODES)[number];
      if (!AUDIT_MODES.includes(mode)) return Response.json({ error: `mode must be one of ${AUDIT_MODES.join(", ")}` }, { status: 400 });
      auditMode = mode;
      return Response.json({ mode });
    }
    counters.requests++;
    return worker.fetch(request, meteredEnv(env), ctx);
  },
  // The audit queue's deliveries, how long the longest took and its longest D1 batch (wall time:
  // its writes hold the shard's single writer, which the requests' reads queue behind).
  async queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    const t0 = performance.now();
    try {
      if (batch.queue === "cdis-audit" && auditMode !== "stored") batch.ackAll();
      else await worker.queue(batch, batch.queue === "cdis-audit" ? timedBatchesEnv(env) : env);
    } finally {
      if (batch.queue === "cdis-audit") {
        counters.auditDeliveries++;
        counters.auditMessages += batch.messages.length;
        counters.auditMaxMs = Math.max(counters.auditMaxMs, performance.now() - t0);
      }
    }
  },
} satisfies ExportedHandler<Env>;
