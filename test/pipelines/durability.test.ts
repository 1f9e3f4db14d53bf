// Async executions survive eviction: the ExecutionRunner checkpoints after each
// node, so a new instance resumes at the first unfinished node without
// re-running finished ones.
import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getChunkedJson } from "../../src/platform/durable-objects/chunked-json";
import type { ExecutionRunner } from "../../src/features/pipelines/execution-runner";
import type { RunState } from "../../src/features/pipelines/engine";
import type { ExecutionJob } from "../../src/features/pipelines/execution-service";
import { useMemoryFhir } from "../support/memory-fhir";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { createTenant } from "../support/tenants";

const fhirFor = useMemoryFhir();

describe("async durability", () => {
  it("evicted mid-run, resumes from its checkpoint and finishes without repeating finished nodes", async () => {
    const tenant = await createTenant();
    const store = fhirFor(tenant.orgId);
    const id = await createPipeline(
      tenant,
      definition(
        [
          trigger(),
          { id: "create", type: "fhir.create", config: {} },
          { id: "pause", type: "control.delay", config: { ms: 400 } },
          { id: "after", type: "data.transform", config: { expression: "resourceType & ' stored'" } },
        ],
        [edge("start", "create", "event", "resource"), edge("create", "pause", "resource"), edge("pause", "after")],
      ),
    );
    const { body } = await run(tenant, id, { resourceType: "Patient" }, { async: true });
    const stub = orgObject(env.EXECUTION_RUNNER, tenant.orgId, body.execution_id);

    // First alarm: runs up to the delay and parks there.
    await runDurableObjectAlarm(stub);
    const parked = await runInDurableObject(stub, (_instance: ExecutionRunner, state) => getChunkedJson<RunState>(state.storage, "state"));
    expect(parked?.nodes.create?.status).toBe("completed");
    expect(parked?.nodes.pause?.status).toBe("waiting");
    expect(parked?.nodes.after?.status).toBe("pending");
    expect(await runInDurableObject(stub, (_i: ExecutionRunner, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now());
    const live = (await (await tenant.fetch(`/api/executions/${body.execution_id}`)).json()) as { status: string; nodes: Record<string, { status: string }> };
    expect(live.status).toBe("running");
    expect(live.nodes.pause?.status).toBe("waiting");

    // The instance goes away; only storage remains.
    await evictDurableObject(stub);
    await new Promise((r) => setTimeout(r, 450));
    await runDurableObjectAlarm(stub);

    const done = (await (await tenant.fetch(`/api/executions/${body.execution_id}`)).json()) as { status: string; outputs: unknown; nodes: Record<string, { status: string; attempts: number }> };
    expect(done.status).toBe("completed");
    expect(done.outputs).toEqual({ after: { output: "Patient stored" } });
    expect(done.nodes.create?.attempts).toBe(1);
    expect([...store.resources.values()].filter((r) => r.resourceType === "Patient")).toHaveLength(1);
    // The object cleaned up after itself and released its concurrency slot.
    expect(await runInDurableObject(stub, (_i: ExecutionRunner, state) => state.storage.list())).toEqual(new Map());
    const { orgGate } = await import("../../src/features/tenancy/limits/gate");
    expect(await orgGate(env, tenant.orgId).slotsInUse("executions")).toBe(0);
  });

  it("a start delivered twice runs once", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(tenant, definition([trigger(), { id: "a", type: "data.transform", config: { expression: "1" } }], [edge("start", "a", "event")]));
    const { body } = await run(tenant, id, {}, { async: true });
    const stub = orgObject(env.EXECUTION_RUNNER, tenant.orgId, body.execution_id);
    const stored = await runInDurableObject(stub, async (_i: ExecutionRunner, state) => {
      const meta = await getChunkedJson<Omit<ExecutionJob, "state">>(state.storage, "meta");
      const runState = await getChunkedJson<RunState>(state.storage, "state");
      return meta && runState ? { ...meta, state: runState } : undefined;
    });
    if (stored) await stub.start(stored); // redelivery while still stored is ignored
    await runDurableObjectAlarm(stub);
    const done = (await (await tenant.fetch(`/api/executions/${body.execution_id}`)).json()) as { status: string; nodes: Record<string, { attempts: number }> };
    expect(done.status).toBe("completed");
    expect(done.nodes.a?.attempts).toBe(1);
  });
});
