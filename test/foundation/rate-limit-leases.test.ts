// Rate limits from leased shares (limits/leases.ts): isolates spend shares of an organization's
// window locally, so most requests make no OrgGate call, and a window still never admits more
// than its limit; what an idle isolate did not spend comes back.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { orgGate } from "../../src/features/tenancy/limits/gate";
import { LEASE_TTL_MS, LeasedWindows, shareOf } from "../../src/features/tenancy/limits/leases";
import { leasedWindows } from "../../src/features/tenancy/middleware/rate-limit";
import { createTenant } from "../support/tenants";
import { withinOneMinuteWindow } from "../support/minute-window";

const api = (limit: number) => [{ name: "api", limit, windowSeconds: 60 }];
const gateOf = (orgId: string) => {
  const gate = orgGate(env, orgId);
  return (asks: Parameters<typeof gate.lease>[0], nowMs: number) => gate.lease(asks, nowMs);
};

describe("leased rate-limit windows", () => {
  it("five isolates, five parallel clients, 1,000/min: at most 1,000 admitted, within 2%, ≤ 5 gate calls per 100", async () => {
    const orgId = `leases-${crypto.randomUUID()}`;
    const gate = gateOf(orgId);
    const isolates = Array.from({ length: 5 }, () => new LeasedWindows());
    const now = Date.UTC(2026, 0, 1, 0, 0, 10);
    let admitted = 0;
    let refused = 0;
    let steadyCalls = 0;
    const calls = () => isolates.reduce((n, w) => n + w.gateCalls, 0);
    await Promise.all(
      Array.from({ length: 5 }, async (_, client) => {
        // Each client's requests land on the isolates in turn, as a balancer would spread them.
        for (let i = 0; i < 240; i++) {
          const result = await isolates[(client + i) % 5]!.consume(orgId, api(1000), gate, now + i);
          if (result.allowed) {
            if (++admitted === 900) steadyCalls = calls();
          } else {
            refused++;
            expect(result.retryAfter).toBeGreaterThanOrEqual(1);
          }
        }
      }),
    );
    expect(admitted + refused).toBe(1200);
    expect(admitted).toBeLessThanOrEqual(1000);
    expect(admitted).toBeGreaterThanOrEqual(980);
    // While the window has room (the first 90%), shares keep gate calls at ≤ 5 per 100 requests;
    // as it runs out, shares shrink (a quarter of what is left) and refusals each ask the gate.
    expect(steadyCalls).toBeGreaterThan(0);
    expect(steadyCalls).toBeLessThanOrEqual(900 * 0.05);
  });

  it("gives an idle isolate's unspent share back, so the window can still be used whole", async () => {
    const orgId = `leases-idle-${crypto.randomUUID()}`;
    const gate = gateOf(orgId);
    const [a, b] = [new LeasedWindows(), new LeasedWindows()];
    const now = Date.UTC(2026, 0, 1, 0, 0, 5);
    expect((await a.consume(orgId, api(1000), gate, now)).allowed).toBe(true); // a leases a share, spends 1
    let byB = 0;
    while ((await b.consume(orgId, api(1000), gate, now + 1)).allowed) byB++;
    // a still holds its share: b got the rest.
    expect(byB).toBe(1000 - shareOf(1000));
    // a comes back after its lease's time: its rest returns with its next lease.
    let byA = 0;
    while ((await a.consume(orgId, api(1000), gate, now + LEASE_TTL_MS)).allowed) byA++;
    expect(1 + byB + byA).toBe(1000);
  });

  it("refuses without spending, and spends no bucket when another is exhausted", async () => {
    const orgId = `leases-refuse-${crypto.randomUUID()}`;
    const gate = gateOf(orgId);
    const w = new LeasedWindows();
    const now = Date.UTC(2026, 0, 1, 0, 0, 5);
    const both = [...api(1000), { name: "agent-chat:k", limit: 1, windowSeconds: 60 }];
    expect((await w.consume(orgId, both, gate, now)).allowed).toBe(true);
    const refused = await w.consume(orgId, both, gate, now);
    expect(refused.allowed).toBe(false);
    expect(refused.buckets.find((b) => b.name === "agent-chat:k")).toMatchObject({ remaining: 0 });
    // The org bucket shows one request used: the refusal took nothing from it.
    expect((await w.consume(orgId, api(1000), gate, now)).buckets[0]).toMatchObject({ remaining: 1000 - 2 });
  });

  it("through the API: five parallel clients of an org with 1,000/min get 1,000 within 2%, truthful headers, 429 past it", async () => {
    await withinOneMinuteWindow(20_000);
    const t = await createTenant({ limits: { apiPerMinute: 1000 } });
    const app = buildApp();
    const callsBefore = leasedWindows.gateCalls;
    const remaining: number[] = [];
    let steadyCalls = 0;
    let admitted = 0;
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        for (let i = 0; i < 210; i++) {
          const res = await app.fetch(
            new Request("http://localhost/api/organization", { headers: { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId } }),
            env,
            createExecutionContext(),
          );
          await res.arrayBuffer();
          if (res.status === 200) {
            if (++admitted === 900) steadyCalls = leasedWindows.gateCalls - callsBefore;
            remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
          } else {
            expect(res.status).toBe(429);
            expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
          }
        }
      }),
    );
    expect(admitted).toBeGreaterThanOrEqual(980);
    expect(admitted).toBeLessThanOrEqual(1000);
    // One isolate here: every admitted request saw a different remaining count, down to 0.
    expect(new Set(remaining).size).toBe(admitted);
    expect(Math.min(...remaining)).toBe(1000 - admitted);
    expect(steadyCalls).toBeLessThanOrEqual(900 * 0.05);
  }, 120_000);
});
