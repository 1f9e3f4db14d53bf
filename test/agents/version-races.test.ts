// Concurrent version snapshots of one agent: every request gets its own number.
import { describe, expect, it } from "vitest";
import { createTenant } from "../support/tenants";

describe("agent versions under concurrency", () => {
  it("20 parallel snapshots all succeed with distinct consecutive numbers", async () => {
    const t = await createTenant();
    const created = await t.fetch("/api/agents", {
      method: "POST",
      json: { name: "racer", agent_type: "custom", model_config: { model: "default", temperature: 0, max_tokens: 10 } },
    });
    const agent = (await created.json()) as { id: string };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.fetch(`/api/agents/${agent.id}/versions`, { method: "POST", json: { note: `n${i}` } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const versions = await Promise.all(responses.map(async (r) => ((await r.json()) as { version: number }).version));
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const after = (await (await t.fetch(`/api/agents/${agent.id}`)).json()) as { version: number };
    expect(after.version).toBe(20);
    const list = (await (await t.fetch(`/api/agents/${agent.id}/versions?limit=100`)).json()) as { total_count: number };
    expect(list.total_count).toBe(20);
  });

  it("deploy, snapshot and delete racing: never both deploy and delete, never a 500, never orphaned versions", async () => {
    const t = await createTenant();
    for (let round = 0; round < 12; round++) {
      const created = await t.fetch("/api/agents", {
        method: "POST",
        json: { name: "gone", agent_type: "custom", model_config: { model: "default", temperature: 0, max_tokens: 10 } },
      });
      const agent = (await created.json()) as { id: string };
      const [snap, deploy, del] = await Promise.all([
        t.fetch(`/api/agents/${agent.id}/versions`, { method: "POST" }),
        t.fetch(`/api/agents/${agent.id}/deploy`, { method: "POST" }),
        t.fetch(`/api/agents/${agent.id}`, { method: "DELETE" }),
      ]);
      expect([201, 404]).toContain(snap.status);
      expect([`200/409`, `404/204`]).toContain(`${deploy.status}/${del.status}`);
      const exists = (await t.fetch(`/api/agents/${agent.id}`)).status === 200;
      expect(exists).toBe(del.status !== 204);
      const versions = await t.ctx.d1.prepare("SELECT COUNT(*) AS n FROM agent_versions WHERE org_id = ? AND agent_id = ?").bind(t.orgId, agent.id).first<{ n: number }>();
      if (!exists) expect(versions?.n).toBe(0);
    }
  });
});
