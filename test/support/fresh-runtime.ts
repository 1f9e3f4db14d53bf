// Every Worker test file starts on a runtime as fresh as a new one, whether it has a workerd to
// itself (the worker-isolated project) or shares one with the files before it (the worker project,
// isolate: false: vitest.config.ts). The setup file test/setup/fresh-runtime.ts calls freshRuntime()
// before each file, so this holds for every file, including ones written after it:
//   - what the previous file queued has been consumed (test/support/queues.ts), so no delivery of
//     another file's lands in this one, and nothing is still being written when the storage goes;
//   - the storage is emptied (cloudflare:test's reset(): D1, R2, KV, every Durable Object and its
//     alarm) and migrated afresh (the schema the migrations left, replayed), so no file sees
//     another's organizations, rows or objects;
//   - what lives in the isolate's memory rather than in storage is put back: the service profile's
//     choices, the pipelines' FHIR store, the per-client public rate-limit windows, vitest's spies,
//     stubs and fake timers, and the globals a test may have replaced.
// The isolate's own caches stay warm: each is keyed by organization, key or content, and a new
// file's organizations are new.
import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { useFhirBinding } from "../../src/features/pipelines/services";
import { clientWindows } from "../../src/features/tenancy/middleware/rate-limit";
import { controlDatabase, shardDatabase, shardNames } from "../../src/platform/shards";
import { enforceD1RowLimit } from "../setup/d1-row-limit";
import { keptGlobal } from "./kept-global";
import { forgetEarlierMessages, queuesDelivered, wrapQueueConsumer } from "./queues";
import { clearServiceChoices } from "./service-profile";

/** Globals a test may replace by assignment (vitest's own stubs and fakes are undone by vi). */
const WATCHED = ["fetch", "Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask", "crypto"] as const;

/** One database's schema as the migrations left it: its DDL in creation order, and its d1_migrations rows. */
interface Schema {
  ddl: string[];
  applied: { name: string; applied_at: string }[];
}

interface Runtime {
  /** Whether a file has run in this runtime yet. */
  used: boolean;
  /** Each database's schema after the first file's migrations, replayed after each reset. */
  schemas?: Schema[];
  /** The globals as the first file found them. */
  globals: Map<string, PropertyDescriptor | undefined>;
  random: () => number;
}

// Taken before the first file runs.
const runtime = keptGlobal<Runtime>("cdis.test.freshRuntime", () => ({
  used: false,
  globals: new Map(WATCHED.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)])),
  random: Math.random,
}));

const tablesIn = async (db: D1Database) => (await db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name NOT LIKE '_cf_%'").first<{ n: number }>())?.n ?? 0;

const databases = () => [{ db: controlDatabase(env), migrations: env.CONTROL_MIGRATIONS }, ...shardNames(env).map((name) => ({ db: shardDatabase(env, name), migrations: env.DATA_MIGRATIONS }))];

/**
 * Both migration sets, as deployed: the control database's tables, and every shard's data tables.
 * The first file of a runtime applies them (with the row-limit triggers) and keeps the schema they
 * left; after a reset the same DDL and d1_migrations rows go back in one batch per database, the
 * state the migrations produce at a fraction of their cost (18 batches per shard, each file).
 */
async function migrate(): Promise<void> {
  const list = databases();
  if (runtime.schemas) {
    const schemas = runtime.schemas;
    await Promise.all(
      list.map(async ({ db }, i) => {
        const left = await tablesIn(db);
        if (left) throw new Error(`the storage reset left ${left} schema objects in ${i === 0 ? "the control database" : shardNames(env)[i - 1]}`);
        await db.batch([...schemas[i]!.ddl.map((sql) => db.prepare(sql)), ...schemas[i]!.applied.map((m) => db.prepare("INSERT INTO d1_migrations (name, applied_at) VALUES (?1, ?2)").bind(m.name, m.applied_at))]);
      }),
    );
    return;
  }
  runtime.schemas = await Promise.all(
    list.map(async ({ db, migrations }) => {
      await applyD1Migrations(db, migrations);
      await enforceD1RowLimit(db);
      const ddl = await db.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY rowid").all<{ sql: string }>();
      const applied = await db.prepare("SELECT name, applied_at FROM d1_migrations ORDER BY id").all<{ name: string; applied_at: string }>();
      return { ddl: ddl.results.map((r) => r.sql), applied: applied.results };
    }),
  );
}

/** cloudflare:test's reset(), until every database is empty. */
async function emptyStorage(): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await reset();
    const left = await Promise.all(databases().map(({ db }) => tablesIn(db)));
    if (left.every((n) => n === 0)) return;
    console.error(`DIAG reset attempt ${attempt} left ${left}`);
    if (attempt === 5) throw new Error(`the storage reset left ${left} schema objects`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** vitest's spies, stubs and fake timers undone, and the globals a test replaced put back. */
function restoreGlobals(): void {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  for (const [name, descriptor] of runtime.globals) {
    if (descriptor && Object.getOwnPropertyDescriptor(globalThis, name)?.value !== descriptor.value) Object.defineProperty(globalThis, name, descriptor);
  }
  Math.random = runtime.random;
}

/** The seams the Worker's own code reads, back to the real wiring. */
function restoreSeams(): void {
  clearServiceChoices();
  useFhirBinding();
  clientWindows.clear();
}

/** The runtime as a new one would be, before a test file runs in it. */
export async function freshRuntime(): Promise<void> {
  wrapQueueConsumer();
  if (runtime.used) {
    // The previous file's deliveries are consumed as they would have been had it waited for them
    // (with its seams and stubs), before anything of its is taken away.
    await queuesDelivered();
    forgetEarlierMessages();
    await emptyStorage();
  }
  restoreGlobals();
  restoreSeams();
  runtime.used = true;
  await migrate();
}
