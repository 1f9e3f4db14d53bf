// An async execution whose state cannot be checkpointed (a node's output beyond what a
// Durable Object stores) fails with a clear error instead of retrying its alarm forever.
import { describe, expect, it } from "vitest";
import { createPipeline, definition, driveExecution, edge, run, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";

describe("async checkpoints", () => {
  it("a node output too large to store fails the execution with EXECUTION_STATE_NOT_STORED", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(
      tenant,
      definition(
        [trigger(), { id: "big", type: "data.transform", config: { expression: '$pad("x", 13000000, "x")' } }, { id: "after", type: "data.transform", config: { expression: "1" } }],
        [edge("start", "big", "event"), edge("big", "after")],
      ),
    );
    const { body } = await run(tenant, id, {}, { async: true });
    const record = (await driveExecution(tenant, body.execution_id)) as unknown as { status: string; error: { code: string; node_id: string }; nodes: Record<string, { status: string }> };
    expect(record.status).toBe("failed");
    expect(record.error).toMatchObject({ code: "EXECUTION_STATE_NOT_STORED", node_id: "big" });
    expect(record.nodes.after?.status).not.toBe("completed");
  });

  it("inputs too large to store answer 413 and leave no execution running", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(tenant, definition([trigger(), { id: "a", type: "data.transform", config: { expression: "1" } }], [edge("start", "a", "event")]));
    const { res, body } = await run(tenant, id, { blob: "x".repeat(13_000_000) }, { async: true });
    expect(res.status).toBe(413);
    expect((body as unknown as { error: { code: string } }).error.code).toBe("EXECUTION_STATE_NOT_STORED");
    const list = (await (await tenant.fetch("/api/executions")).json()) as { total_count: number };
    expect(list.total_count).toBe(0);
  });
});
