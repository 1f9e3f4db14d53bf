// Spec section 8: exact per-org and per-user limits, headers on every response, 429 shape, reset.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { heldSlot, orgGate } from "../../src/limits/gate";
import { authedFetch, createKey, createTenant } from "../support/tenants";

const gate = (name: string) => orgGate(env, name);

describe("rate limits", () => {
  it("allows exactly the org limit per window, then answers 429 with Retry-After", async () => {
    const t = await createTenant({ limits: { apiPerMinute: 5 } });
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.fetch("/api/organization");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("5");
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const over = await t.fetch("/api/organization");
    expect(over.status).toBe(429);
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = Number(over.headers.get("x-ratelimit-reset"));
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(reset % 60).toBe(0);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Math.abs(reset - (Date.now() / 1000 + retryAfter))).toBeLessThan(2);
    expect(await over.json()).toMatchObject({ error: { code: "RATE_LIMITED", status: 429 } });
  });

  it("counts every key of the org together, and orgs apart", async () => {
    const a = await createTenant({ limits: { apiPerMinute: 3 } });
    const second = authedFetch(a.orgId, (await createKey(a.orgId, "clinician")).key);
    const b = await createTenant({ limits: { apiPerMinute: 3 } });
    await a.fetch("/api/organization");
    await second("/api/organization");
    await a.fetch("/api/organization");
    expect((await second("/api/organization")).status).toBe(429);
    expect((await b.fetch("/api/organization")).status).toBe(200);
  });

  it("puts rate-limit headers on authenticated error responses too", async () => {
    const t = await createTenant();
    for (const res of [await t.fetch("/api/nowhere"), await t.fetch("/api/api-keys", { method: "POST", json: {} })]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("x-ratelimit-limit")).toBe("1000");
      expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
      expect(res.headers.get("x-ratelimit-reset")).not.toBeNull();
    }
  });

  it("limits agent chat per user (API key) and reports the tighter bucket", async () => {
    const t = await createTenant({ limits: { agentChatPerMinute: 2 } });
    const other = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    const chat = (f: typeof other) => f("/api/agents/a1/chat", { method: "POST", json: { message: "hi" } });
    const first = await chat(t.fetch);
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    await chat(t.fetch);
    const over = await chat(t.fetch);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { message: string } }).error.message).toMatch(/agent-chat/);
    expect((await chat(other)).status).not.toBe(429);
    // Refused requests do not use up the org-wide allowance: 2 chats + 1 other chat + this one.
    const org = await t.fetch("/api/organization");
    expect(org.headers.get("x-ratelimit-remaining")).toBe(String(1000 - 4));
  });

  it("limits copilot requests per user", async () => {
    const t = await createTenant({ limits: { copilotPerMinute: 1 } });
    await t.fetch("/api/copilot/chat", { method: "POST", json: { message: "x" } });
    expect((await t.fetch("/api/copilot/chat", { method: "POST", json: { message: "x" } })).status).toBe(429);
  });

  it("resets at the window boundary", async () => {
    const g = gate(`reset-${crypto.randomUUID()}`);
    const bucket = [{ name: "api", limit: 2, windowSeconds: 60 }];
    const t0 = Date.UTC(2026, 0, 1, 0, 0, 30);
    expect((await g.consume(bucket, t0)).allowed).toBe(true);
    expect((await g.consume(bucket, t0 + 1000)).allowed).toBe(true);
    const refused = await g.consume(bucket, t0 + 2000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBe(28);
    const next = await g.consume(bucket, Date.UTC(2026, 0, 1, 0, 1, 0));
    expect(next.allowed).toBe(true);
    expect(next.buckets[0]).toMatchObject({ remaining: 1, reset: Date.UTC(2026, 0, 1, 0, 2, 0) / 1000 });
  });
});

describe("concurrency slots", () => {
  const lease = 30_000;

  it("acquires up to the limit, refuses beyond with a retry hint, frees on release", async () => {
    const g = gate(`slots-${crypto.randomUUID()}`);
    const now = 1_000_000;
    expect(await g.acquireSlot("exports", "e1", 2, lease, now)).toMatchObject({ acquired: true, inUse: 1 });
    expect(await g.acquireSlot("exports", "e2", 2, lease, now)).toMatchObject({ acquired: true, inUse: 2 });
    const refused = await g.acquireSlot("exports", "e3", 2, lease, now + 10_000);
    expect(refused).toMatchObject({ acquired: false, retryAfter: 20, inUse: 2 });
    // Another kind has its own slots.
    expect((await g.acquireSlot("executions", "x1", 1, lease, now)).acquired).toBe(true);
    expect(await g.releaseSlot("exports", "e1")).toBe(true);
    expect(await g.releaseSlot("exports", "e1")).toBe(false);
    expect((await g.acquireSlot("exports", "e3", 2, lease, now + 10_000)).acquired).toBe(true);
  });

  it("renews for the same holder without taking a second slot", async () => {
    const g = gate(`renew-${crypto.randomUUID()}`);
    await g.acquireSlot("executions", "h", 1, lease, 0);
    const renewed = await g.acquireSlot("executions", "h", 1, lease, 20_000);
    expect(renewed).toMatchObject({ acquired: true, inUse: 1, expiresAt: 50_000 });
  });

  it("holds one slot across a series of runs, renewing it past half its lease, until released", async () => {
    const orgId = `held-${crypto.randomUUID()}`;
    let now = 0;
    const slot = heldSlot(env, orgId, "executions", lease, () => now);
    await slot.hold(1);
    await slot.hold(1);
    expect(await gate(orgId).slotsInUse("executions")).toBe(1);
    // The series' slot counts against the limit: nobody else gets the only one.
    expect((await gate(orgId).acquireSlot("executions", "other", 1, lease)).acquired).toBe(false);
    now = lease / 2;
    await slot.hold(1); // renews its own slot, which a limit of 1 allows
    expect(await gate(orgId).slotsInUse("executions")).toBe(1);
    await slot.release();
    expect(await gate(orgId).slotsInUse("executions")).toBe(0);
    await slot.release();
  });

  it("a held slot refuses with 429 when the organization's slots are taken", async () => {
    const orgId = `held-full-${crypto.randomUUID()}`;
    await gate(orgId).acquireSlot("executions", "other", 1, lease);
    const slot = heldSlot(env, orgId, "executions", lease);
    await expect(slot.hold(1)).rejects.toMatchObject({ status: 429, code: "RATE_LIMITED" });
    await slot.release();
    expect(await gate(orgId).slotsInUse("executions")).toBe(1);
  });

  it("leases several condition keys all or none, renews them for their holder, and frees them", async () => {
    const g = gate(`leases-${crypto.randomUUID()}`);
    expect(await g.acquireLeases(["a", "b", "b"], "h1", lease, 0)).toEqual({ acquired: true });
    // b is held: h2 gets none of b and c, so c stays free.
    expect(await g.acquireLeases(["b", "c"], "h2", lease, 0)).toEqual({ acquired: false });
    expect(await g.acquireLeases(["c"], "h3", lease, 0)).toEqual({ acquired: true });
    await g.releaseLeases(["c"], "h3");
    expect(await g.acquireLeases(["a", "b"], "h1", lease, 1_000)).toEqual({ acquired: true });
    // Another holder's release frees nothing of h1's.
    await g.releaseLeases(["a", "b"], "h2");
    expect(await g.acquireLeases(["b", "c"], "h2", lease, 1_000)).toEqual({ acquired: false });
    await g.releaseLeases(["a", "b"], "h1");
    expect(await g.acquireLeases(["b", "c"], "h2", lease, 1_000)).toEqual({ acquired: true });
    // A holder that died: its leases lapse.
    expect(await g.acquireLeases(["b"], "h4", lease, 1_000 + lease - 1)).toEqual({ acquired: false });
    expect(await g.acquireLeases(["b"], "h4", lease, 1_000 + lease)).toEqual({ acquired: true });
  });

  it("lets a dead holder's lease expire", async () => {
    const g = gate(`expire-${crypto.randomUUID()}`);
    await g.acquireSlot("exports", "dead", 1, lease, 0);
    expect((await g.acquireSlot("exports", "next", 1, lease, lease - 1)).acquired).toBe(false);
    expect((await g.acquireSlot("exports", "next", 1, lease, lease)).acquired).toBe(true);
    expect(await g.slotsInUse("exports", lease)).toBe(1);
  });
});
