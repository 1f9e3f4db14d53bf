// The execution service's batch-runner API: many synchronous runs of deployed pipelines
// under one concurrency slot, deployed versions reused for a while, and each run's record
// handed to the caller to commit with its own writes.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Write } from "../../src/platform/db/client";
import { orgGate } from "../../src/features/tenancy/limits/gate";
import { contextFor } from "../../src/main/context";
import { countingD1 } from "../support/d1-counter";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";

const adds = (n: number) => definition([trigger(), { id: "a", type: "data.transform", config: { expression: `n + ${n}` } }], [edge("start", "a", "event")]);
const manual = { kind: "event" as const, nodeId: "start" };

async function executionCount(t: Tenant): Promise<number> {
  return ((await (await t.fetch("/api/executions")).json()) as { total_count: number }).total_count;
}

describe("execution batch", () => {
  it("runs one after another in one slot, and records runs only when the caller commits their records", async () => {
    const t = await createTenant({ limits: { concurrentExecutions: 1 } });
    const id = await createPipeline(t, adds(1));
    const gate = orgGate(env, t.orgId);
    const batch = t.ctx.openExecutionBatch({ versionTtlMs: 1_000 });
    const records: Write[] = [];
    const first = await batch.run({ pipelineId: id, inputs: { n: 1 }, trigger: manual, concurrencyLimit: 1 }, records);
    // A limit of one is no obstacle to the second run: the batch holds the org's one slot.
    const second = await batch.run({ pipelineId: id, inputs: { n: 41 }, trigger: manual, concurrencyLimit: 1 }, records);
    expect([first.status, second.status]).toEqual(["completed", "completed"]);
    expect(second.outputs).toEqual({ a: { output: 42 } });
    expect(await gate.slotsInUse("executions")).toBe(1);
    // Neither run is recorded yet, not even as running: their inserts wait in `records`.
    expect(records).toHaveLength(2);
    expect(await executionCount(t)).toBe(0);
    await t.ctx.db.batch(records as [Write, ...Write[]]);
    const listed = (await (await t.fetch(`/api/executions/${second.execution_id}`)).json()) as Record<string, unknown>;
    expect(listed).toMatchObject({ status: "completed", mode: "sync", trigger: "event", pipeline_version: 1 });
    expect(await executionCount(t)).toBe(2);

    await batch.close();
    expect(await gate.slotsInUse("executions")).toBe(0);
  });

  it("waits for no slot it cannot get: a full org refuses the first run with 429", async () => {
    const t = await createTenant({ limits: { concurrentExecutions: 1 } });
    const id = await createPipeline(t, adds(1));
    const gate = orgGate(env, t.orgId);
    await gate.acquireSlot("executions", "someone-else", 1, 60_000);
    const batch = t.ctx.openExecutionBatch({ versionTtlMs: 1_000 });
    const records: Write[] = [];
    await expect(batch.run({ pipelineId: id, inputs: { n: 1 }, trigger: manual, concurrencyLimit: 1 }, records)).rejects.toMatchObject({ status: 429 });
    expect(records).toEqual([]);
    await batch.close();
    expect(await gate.slotsInUse("executions")).toBe(1);
  });

  it("reuses a pipeline's deployed version for versionTtlMs, and runs only deployed pipelines", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, adds(1));
    const cached = t.ctx.openExecutionBatch({ versionTtlMs: 60_000 });
    const fresh = t.ctx.openExecutionBatch({ versionTtlMs: 0 });
    const records: Write[] = [];
    const run = (batch: typeof cached) => batch.run({ pipelineId: id, inputs: { n: 1 }, trigger: manual, concurrencyLimit: 10 }, records);
    expect((await run(cached)).pipeline_version).toBe(1);
    expect((await t.fetch(`/api/pipelines/${id}`, { method: "PUT", json: { name: "p", description: "", definition: adds(100) } })).status).toBe(200);
    expect((await t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" })).status).toBe(200);
    expect(await run(cached)).toMatchObject({ pipeline_version: 1, outputs: { a: { output: 2 } } });
    expect(await run(fresh)).toMatchObject({ pipeline_version: 2, outputs: { a: { output: 101 } } });

    const undeployed = await createPipeline(t, adds(1), { deploy: false });
    await expect(fresh.run({ pipelineId: undeployed, inputs: {}, trigger: manual, concurrencyLimit: 10 }, records)).rejects.toMatchObject({ code: "PIPELINE_NOT_DEPLOYED" });
    await Promise.all([cached.close(), fresh.close()]);
  });

  it("costs no D1 round trip per run beyond the caller's batch: versions are reused, records deferred", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, adds(1));
    const d1 = countingD1(env, t.shard);
    const batch = contextFor(d1.env, { orgId: t.orgId, shard: t.shard, movingTo: null }).openExecutionBatch({ versionTtlMs: 60_000 });
    const records: Write[] = [];
    await batch.run({ pipelineId: id, inputs: { n: 0 }, trigger: manual, concurrencyLimit: 10 }, records);
    const afterFirst = d1.count;
    expect(afterFirst).toBeGreaterThan(0);
    for (let n = 1; n <= 5; n++) await batch.run({ pipelineId: id, inputs: { n }, trigger: manual, concurrencyLimit: 10 }, records);
    expect(d1.count - afterFirst).toBe(0);
    expect(records).toHaveLength(6);
    await batch.close();
  });
});
