// Readiness for load balancers and the console: every D1 database, R2 and a Durable Object.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkReadiness } from "../../src/features/operations/use-cases/health";
import { call } from "../support/tenants";

describe("GET /health/ready", () => {
  it("checks the control database, every shard, R2 and a Durable Object, with timings, without credentials", async () => {
    const res = await call("/health/ready");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: { name: string; ok: boolean; ms: number }[] };
    expect(body.status).toBe("ready");
    expect(body.checks.map((c) => c.name)).toEqual(["d1:control", "d1:SHARD_0", "d1:SHARD_1", "r2", "durable_object"]);
    for (const check of body.checks) expect(check.ms).toBeGreaterThanOrEqual(0);
  });

  it("is not ready, naming the failing check, when a binding is broken", async () => {
    const broken = { prepare: () => ({ first: () => Promise.reject(new Error("D1_ERROR: database unavailable")) }) } as unknown as D1Database;
    const result = await checkReadiness({
      databases: [{ name: "control", db: env.DB }, { name: "SHARD_1", db: broken }],
      blobs: env.BLOBS,
      durableObject: () => Promise.reject(new Error("Durable Object unreachable")),
    });
    expect(result.status).toBe("not_ready");
    expect(result.checks.filter((c) => !c.ok).map((c) => [c.name, c.error])).toEqual([
      ["d1:SHARD_1", "D1_ERROR: database unavailable"],
      ["durable_object", "Durable Object unreachable"],
    ]);
  });
});
