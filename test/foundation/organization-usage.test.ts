// GET /api/organization/usage: the organization's current usage from the OrgGate's own counters
// (the rate window the limiter decides by, the execution and export slots), never another org's.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgGate } from "../../src/features/tenancy/limits/gate";
import type { Usage } from "../../src/features/tenancy/use-cases/usage";
import { call, createKey, createTenant, type Tenant } from "../support/tenants";


async function usage(t: Tenant): Promise<{ body: Usage; remaining: number; reset: number }> {
  const res = await t.fetch("/api/organization/usage");
  expect(res.status).toBe(200);
  return { body: (await res.json()) as Usage, remaining: Number(res.headers.get("x-ratelimit-remaining")), reset: Number(res.headers.get("x-ratelimit-reset")) };
}

describe("organization usage", () => {
  it("reports the requests of the current window exactly as the rate limiter counts them", async () => {
    const t = await createTenant({ limits: { apiPerMinute: 30, concurrentExports: 3, concurrentExecutions: 7 } });
    for (let i = 0; i < 4; i++) expect((await t.fetch("/api/organization")).status).toBe(200);
    const { body, remaining, reset } = await usage(t);
    // Same request, same counter: what the header says is left is what usage says is not.
    expect(body.requests).toEqual({ used: 30 - remaining, limit: 30 });
    expect(body.requests.used).toBeGreaterThanOrEqual(1);
    expect(body.window.seconds).toBe(60);
    expect(Date.parse(body.window.resets_at) / 1000).toBe(reset);
    expect(body.executions).toEqual({ running: 0, limit: 7 });
    expect(body.exports).toEqual({ running: 0, limit: 3 });
    expect(body.agent_chat).toMatchObject({ used: 0 });
    expect(body.copilot).toMatchObject({ used: 0 });
  });

  it("counts running executions and exports from the gate's slots, per organization", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const gateA = orgGate(env, a.orgId);
    await gateA.acquireSlot("exports", "job-1", 5, 60_000);
    await gateA.acquireSlot("executions", "run-1", 100, 60_000);
    await gateA.acquireSlot("executions", "run-2", 100, 60_000);
    const ours = (await usage(a)).body;
    expect(ours.exports.running).toBe(1);
    expect(ours.executions.running).toBe(2);
    // B sees only its own counters, and B's key cannot ask about A.
    const theirs = (await usage(b)).body;
    expect(theirs.exports.running).toBe(0);
    expect(theirs.executions.running).toBe(0);
    const crossed = await call("/api/organization/usage", { headers: { authorization: `Bearer ${b.key}`, "x-organization-id": a.orgId } });
    expect(crossed.status).toBe(403);

    await gateA.releaseSlot("exports", "job-1");
    expect((await usage(a)).body.exports.running).toBe(0);
    // Any role with org:read may look (clinicians included).
    const clinician = await createKey(a.orgId, "clinician");
    const asClinician = await call("/api/organization/usage", { headers: { authorization: `Bearer ${clinician.key}`, "x-organization-id": a.orgId } });
    expect(asClinician.status).toBe(200);
  });
});
