// Moves between shards run by the OrgMover Durable Object: the operator route answers 202 with
// the job at once, its progress is readable while alarms run it, it ends with the org and all of
// its rows on the new shard; a background write that changed the old copy abandons it with the
// org left where it was; a step cut short (an eviction between a page and the saved state) and
// run again neither loses nor doubles rows.
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forgetCachedKeys } from "../../src/features/tenancy/middleware/auth";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { type MoveJob, beginMove, isFinished, stepMove } from "../../src/platform/org-move";
import { shardDatabase } from "../../src/platform/shards";
import { call, createTenant, type Tenant } from "../support/tenants";
import { rowsIn } from "./seed";

const other = (shard: string) => (shard === "SHARD_0" ? "SHARD_1" : "SHARD_0");
const operator = { authorization: `Bearer ${env.OPERATOR_TOKEN}` };
const startMove = (orgId: string, shard: string) => call(`/admin/organizations/${orgId}/move`, { method: "POST", json: { shard }, headers: operator });
const moveStatus = (orgId: string) => call(`/admin/organizations/${orgId}/move`, { headers: operator });

interface MoveView {
  id: string;
  phase: string;
  from: string;
  to: string;
  progress: { tables: number; table: number; copiedRows: number; verifiedTables: number };
  tables: { table: string; rows: number }[];
  error?: { code: string; message: string };
}

async function until(orgId: string, done: (m: MoveView) => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<MoveView[]> {
  const seen: MoveView[] = [];
  const stop = Date.now() + timeoutMs;
  for (;;) {
    const res = await moveStatus(orgId);
    expect(res.status).toBe(200);
    const view = (await res.json()) as MoveView;
    seen.push(view);
    if (await done(view)) return seen;
    if (Date.now() > stop) throw new Error(`move not finished: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function withPatients(n: number): Promise<Tenant> {
  const t = await createTenant();
  for (let i = 0; i < n; i++) {
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: `Move${i}` }] } })).status).toBe(201);
  }
  return t;
}

const directoryRow = (orgId: string) => env.DB.prepare("SELECT shard, moving_to FROM organizations WHERE id = ?1").bind(orgId).first<{ shard: string; moving_to: string | null }>();

describe("moves run by the OrgMover Durable Object", () => {
  it("starts with 202 and a job id, shows progress, and ends with every row on the new shard", { timeout: 60_000 }, async () => {
    const t = await withPatients(6);
    const source = t.shard;
    const before = await rowsIn(shardDatabase(env, source), t.orgId);
    const started = await startMove(t.orgId, other(source));
    expect(started.status).toBe(202);
    expect(started.headers.get("location")).toBe(`/admin/organizations/${t.orgId}/move`);
    const job = (await started.json()) as MoveView;
    expect(job).toMatchObject({ id: expect.any(String), from: source, to: other(source), phase: "waiting-before-copy" });
    expect(job.progress.tables).toBeGreaterThan(10);
    // Writes pause at once.
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(503);

    const seen = await until(t.orgId, (m) => m.phase === "done" || m.phase === "abandoned" || m.phase === "stuck");
    const last = seen.at(-1)!;
    expect(last, JSON.stringify(last.error)).toMatchObject({ id: job.id, phase: "done" });
    expect(last.progress.copiedRows).toBeGreaterThanOrEqual(Object.values(before).reduce((a, b) => a + b, 0));
    expect(last.tables.find((x) => x.table === "fhir_resources")?.rows).toBe(before.fhir_resources);
    expect(await directoryRow(t.orgId)).toEqual({ shard: other(source), moving_to: null });
    expect(await rowsIn(shardDatabase(env, source), t.orgId)).toEqual({});
    const moved = await rowsIn(shardDatabase(env, other(source)), t.orgId);
    expect(moved.fhir_resources).toBe(before.fhir_resources);
    expect(moved.fhir_history).toBe(before.fhir_history);
    forgetCachedKeys();
    const list = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient?_count=50`)).json()) as { entry?: unknown[] };
    expect(list.entry).toHaveLength(6);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(201);
  });

  it("survives evictions while it runs: a new instance resumes from storage and the move completes", { timeout: 60_000 }, async () => {
    const t = await withPatients(8);
    const before = await rowsIn(shardDatabase(env, t.shard), t.orgId);
    expect((await startMove(t.orgId, other(t.shard))).status).toBe(202);
    const stub = orgObject(env.ORG_MOVER, t.orgId, "move");
    let evictions = 0;
    const seen = await until(t.orgId, async (m) => {
      if (m.phase === "done" || m.phase === "abandoned" || m.phase === "stuck") return true;
      evictions++;
      await evictDurableObject(stub);
      return false;
    });
    expect(evictions).toBeGreaterThan(0);
    expect(seen.at(-1), JSON.stringify(seen.at(-1)?.error)).toMatchObject({ phase: "done" });
    const moved = await rowsIn(shardDatabase(env, other(t.shard)), t.orgId);
    expect(moved.fhir_resources).toBe(before.fhir_resources);
    expect(moved.fhir_history).toBe(before.fhir_history);
    expect(await rowsIn(shardDatabase(env, t.shard), t.orgId)).toEqual({});
  });

  it("refuses a second move while one runs, and answers 404 for an org that never moved", { timeout: 60_000 }, async () => {
    const t = await withPatients(1);
    expect((await startMove(t.orgId, other(t.shard))).status).toBe(202);
    const again = await startMove(t.orgId, other(t.shard));
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("ORG_MOVING");
    await until(t.orgId, (m) => m.phase === "done");

    const never = await createTenant();
    const missing = await moveStatus(never.orgId);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("MOVE_NOT_FOUND");
    expect((await call(`/admin/organizations/${never.orgId}/move`)).status).toBe(401);
  });

  it("is abandoned, the org left where it was, when a background write changed the old copy during the move", { timeout: 30_000 }, async () => {
    const t = await withPatients(3);
    const source = shardDatabase(env, t.shard);
    const opts = { onDirectoryChange: forgetCachedKeys, pagesPerStep: 1, pageRows: 2 };
    let job = await beginMove(env, t.orgId, other(t.shard), 0, opts);
    while (job.phase !== "verifying") job = await stepMove(env, job, opts);
    // A background writer (an alarm, a running execution) that ignored the pause.
    await source.prepare("UPDATE fhir_resources SET last_updated = 'changed meanwhile' WHERE org_id = ?1").bind(t.orgId).run();
    while (!isFinished(job)) job = await stepMove(env, job, opts);
    expect(job).toMatchObject({ phase: "abandoned", error: { code: "MOVE_VERIFICATION_FAILED", message: expect.stringContaining("fhir_resources") } });
    expect(await directoryRow(t.orgId)).toEqual({ shard: t.shard, moving_to: null });
    expect(await rowsIn(shardDatabase(env, other(t.shard)), t.orgId)).toEqual({});
    forgetCachedKeys();
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(201);
  });

  it("resumes a step cut short after its page was written without doubling or losing a row", { timeout: 60_000 }, async () => {
    const t = await withPatients(7);
    const before = await rowsIn(shardDatabase(env, t.shard), t.orgId);
    const opts = { onDirectoryChange: forgetCachedKeys, pagesPerStep: 1, pageRows: 5 };
    let job: MoveJob = await beginMove(env, t.orgId, other(t.shard), 0, opts);
    let replays = 0;
    while (!isFinished(job)) {
      // As an eviction would: the stored state is the one before the step, whose pages were written.
      const stored = structuredClone(job);
      const next = await stepMove(env, stored, opts);
      if (job.phase === "copying" && replays < 3) {
        replays++;
        job = await stepMove(env, stored, opts);
        expect(job.table).toBeGreaterThanOrEqual(next.table - 1);
      } else job = next;
    }
    expect(replays).toBe(3);
    expect(job.phase, JSON.stringify(job.error)).toBe("done");
    const moved = await rowsIn(shardDatabase(env, other(t.shard)), t.orgId);
    expect(moved.fhir_resources).toBe(before.fhir_resources);
    expect(moved.fhir_history).toBe(before.fhir_history);
  });
});
