// Pipeline management under concurrency: parallel saves each get their own version,
// and a deploy racing a delete never leaves a deployed pipeline without its versions.
import { describe, expect, it } from "vitest";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const withExpression = (expression: string) =>
  definition([trigger(), { id: "t", type: "data.transform", config: { expression } }], [edge("start", "t", "event")]);

describe("pipeline races", () => {
  it("parallel saves of changed definitions all succeed with distinct consecutive versions", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, withExpression("a"), { deploy: false });
    const saves = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.fetch(`/api/pipelines/${id}`, { method: "PUT", json: { name: `p${i}`, definition: withExpression(`a + ${i}`) } })),
    );
    expect(saves.map((r) => r.status)).toEqual(Array(12).fill(200));
    const versions = await Promise.all(saves.map(async (r) => ((await r.json()) as { version: number }).version));
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    const list = (await (await t.fetch(`/api/pipelines/${id}/versions?limit=100`)).json()) as { total_count: number; versions: { version: number; definition: unknown }[] };
    expect(list.total_count).toBe(13);
    // The pipeline's definition is the one its current version keeps.
    const current = (await (await t.fetch(`/api/pipelines/${id}`)).json()) as { version: number; definition: unknown };
    expect(list.versions.find((v) => v.version === current.version)?.definition).toEqual(current.definition);
  });

  it("deploy racing delete: exactly one wins, and a deployed pipeline keeps its versions", async () => {
    const t = await createTenant();
    for (let round = 0; round < 15; round++) {
      const id = await createPipeline(t, withExpression("a"), { deploy: false });
      const [deploy, del] = await Promise.all([
        t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" }),
        t.fetch(`/api/pipelines/${id}`, { method: "DELETE" }),
      ]);
      expect([`200/409`, `404/204`]).toContain(`${deploy.status}/${del.status}`);
      await expectConsistent(t, id);
    }
  });

  it("delete racing deploy of an already deployed and undeployed pipeline never orphans versions", async () => {
    const t = await createTenant();
    for (let round = 0; round < 10; round++) {
      const id = await createPipeline(t, withExpression("a"));
      await t.fetch(`/api/pipelines/${id}/undeploy`, { method: "POST" });
      const statuses = await Promise.all([
        t.fetch(`/api/pipelines/${id}`, { method: "DELETE" }),
        t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" }),
        t.fetch(`/api/pipelines/${id}`, { method: "DELETE" }),
      ]).then((rs) => rs.map((r) => r.status));
      expect(statuses.every((s) => s < 500)).toBe(true);
      expect(statuses.filter((s) => s === 204).length).toBeLessThanOrEqual(1);
      await expectConsistent(t, id);
    }
  });
});

/** Either the pipeline is gone with its versions, or it exists and its deployed version can be read. */
async function expectConsistent(t: Tenant, id: string) {
  const res = await t.fetch(`/api/pipelines/${id}`);
  const versions = (await (await t.fetch(`/api/pipelines/${id}/versions`)).json()) as { total_count?: number };
  if (res.status === 404) {
    expect(versions.total_count).toBeUndefined();
    return;
  }
  const p = (await res.json()) as { status: string; version: number; deployed_version: number | null };
  expect(versions.total_count).toBe(p.version);
  if (p.status === "deployed") {
    expect((await t.fetch(`/api/pipelines/${id}/versions/${p.deployed_version}`)).status).toBe(200);
    const run = await t.fetch("/api/execute", { method: "POST", json: { pipeline_id: id, inputs: { a: 1 } } });
    expect(run.status).toBe(200);
  }
}
