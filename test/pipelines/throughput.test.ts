// Service-path throughput inside workerd: a 5-node pipeline executed through
// POST /api/execute (auth, rate limit, concurrency slot, D1 record, engine).
// Prints the figure for bench/README; asserts that every execution completed.
import { describe, expect, it } from "vitest";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";

describe("throughput (bench)", () => {
  it("runs 5-node executions end to end and reports executions/s", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(
      tenant,
      definition(
        [
          trigger(),
          { id: "check", type: "control.condition", config: { expression: "resourceType = 'Patient'" } },
          { id: "shape", type: "data.transform", config: { expression: "{'id': id, 'family': name[0].family}" } },
          { id: "tag", type: "data.set_fields", config: { fields: { source: "'bench'" } } },
          { id: "valid", type: "data.json_schema_validate", config: { schema: { type: "object", required: ["id", "family"] } } },
        ],
        [edge("start", "check", "event"), edge("check", "shape", "true"), edge("shape", "tag"), edge("tag", "valid")],
      ),
    );
    const input = { resourceType: "Patient", id: "p1", name: [{ family: "Lovelace" }] };
    const total = 300;
    const concurrency = 10;
    /** Requests per second of `call`, `total` times with `concurrency` in flight. */
    const rate = async (call: () => Promise<void>) => {
      let issued = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (issued < total) {
            issued++;
            await call();
          }
        }),
      );
      return total / ((performance.now() - started) / 1000);
    };
    // Baseline in the same run: an authenticated, rate-limited read of one D1 row.
    const baseline = await rate(async () => {
      await (await tenant.fetch("/api/organization")).arrayBuffer();
    });
    const statuses: string[] = [];
    const executions = await rate(async () => {
      statuses.push((await run(tenant, id, input)).body.status);
    });
    console.log(
      `[bench] 5-node pipeline via POST /api/execute: ${executions.toFixed(0)} executions/s; baseline GET /api/organization: ${baseline.toFixed(0)} req/s; ratio ${(executions / baseline).toFixed(2)} (concurrency ${concurrency})`,
    );
    expect(statuses.every((s) => s === "completed")).toBe(true);
    const listed = (await (await tenant.fetch(`/api/executions?pipeline_id=${id}&limit=1`)).json()) as { total_count: number };
    expect(listed.total_count).toBe(statuses.length);
  }, 60_000);
});
