// Spec section 8: exact per-org and per-user limits, headers on every response, 429 shape, reset.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { heldSlot, orgGate } from "../../src/features/tenancy/limits/gate";
import { authedFetch, call, createKey, createTenant } from "../support/tenants";
import { withinOneMinuteWindow } from "../support/minute-window";

const app = buildApp();

const gate = (name: string) => orgGate(env, name);

describe("rate limits", () => {
  it("allows exactly the org limit per window, then answers 429 with Retry-After", async () => {
    const t = await createTenant({ limits: { apiPerMinute: 5 } });
    await withinOneMinuteWindow();
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
    await withinOneMinuteWindow();
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

  it("puts rate-limit headers on public responses and on responses refused by authentication, per client IP", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const ip = { "cf-connecting-ip": `198.51.100.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}` };
    const responses = [
      await call("/health", { headers: ip }),
      await call("/api/openapi.json", { headers: ip }),
      await call("/api/docs", { headers: ip }),
      await call("/nowhere", { headers: ip }),
      await call("/api/organization", { headers: { ...ip, "x-organization-id": t.orgId } }), // 401
      await call("/api/organization", { headers: { ...ip, authorization: "Bearer cdis_unknown", "x-organization-id": other.orgId } }), // 401
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 404, 401, 401]);
    expect(responses.map((r) => r.headers.get("x-ratelimit-limit"))).toEqual(Array(6).fill("300"));
    expect(responses.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["299", "298", "297", "296", "295", "294"]);
    for (const r of responses) expect(Number(r.headers.get("x-ratelimit-reset")) % 60).toBe(0);
    // They did not count in the organization's bucket.
    expect((await t.fetch("/api/organization")).headers.get("x-ratelimit-remaining")).toBe("999");
  });

  it("counts a valid key refused for the organization it names in the key's own organization, not the client IP's", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const ip = { "cf-connecting-ip": crypto.randomUUID() };
    const refused = [
      await call("/api/organization", { headers: { ...ip, authorization: `Bearer ${t.key}` } }), // 400, no org header
      await call("/api/organization", { headers: { ...ip, authorization: `Bearer ${t.key}`, "x-organization-id": other.orgId } }), // 403
      await call(`/fhir/r4/${other.orgId}/Patient`, { headers: { ...ip, authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId } }), // 403, path org
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 403, 403]);
    expect(refused.map((r) => [r.headers.get("x-ratelimit-limit"), r.headers.get("x-ratelimit-remaining")])).toEqual([["1000", "999"], ["1000", "998"], ["1000", "997"]]);
    expect((await t.fetch("/api/organization")).headers.get("x-ratelimit-remaining")).toBe("996");
    // The client IP's budget is untouched (300 less its first public request).
    expect((await call("/health", { headers: ip })).headers.get("x-ratelimit-remaining")).toBe("299");
    // The other organization's bucket is not touched either.
    expect((await other.fetch("/api/organization")).headers.get("x-ratelimit-remaining")).toBe("999");
  });

  it("a valid key naming another organization cannot spend a shared client IP's budget; over its own org's limit it is 429", async () => {
    const t = await createTenant({ limits: { apiPerMinute: 3 } });
    const other = await createTenant();
    const vars = { ...env, LIMIT_PUBLIC_PER_MINUTE: "2" };
    const ip = crypto.randomUUID();
    const at = async (path: string, headers: Record<string, string> = {}) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`http://localhost${path}`, { headers: { "cf-connecting-ip": ip, ...headers } }), vars, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const wrongOrg = { authorization: `Bearer ${t.key}`, "x-organization-id": other.orgId };
    expect([(await at("/api/organization", wrongOrg)).status, (await at("/api/organization", wrongOrg)).status, (await at("/api/organization", wrongOrg)).status]).toEqual([403, 403, 403]);
    const over = await at("/api/organization", wrongOrg);
    expect(over.status).toBe(429);
    expect(over.headers.get("x-ratelimit-limit")).toBe("3");
    // Everyone else behind that address still has the public budget.
    expect((await at("/health")).status).toBe(200);
    expect((await at("/health")).status).toBe(200);
  });

  it("refuses a client over the public limit with 429, and keeps clients apart", async () => {
    const t = await createTenant();
    const vars = { ...env, LIMIT_PUBLIC_PER_MINUTE: "2" };
    const at = async (ip: string, path: string, headers: Record<string, string> = {}) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`http://localhost${path}`, { headers: { "cf-connecting-ip": ip, ...headers } }), vars, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const ip = crypto.randomUUID();
    expect((await at(ip, "/health")).status).toBe(200);
    expect((await at(ip, "/api/organization")).status).toBe(401);
    const over = await at(ip, "/health");
    expect(over.status).toBe(429);
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await over.json()).toMatchObject({ error: { code: "RATE_LIMITED", status: 429 } });
    const fhir = await at(ip, `/fhir/r4/${t.orgId}/Patient`);
    expect(fhir.status).toBe(429);
    expect(await fhir.json()).toMatchObject({ resourceType: "OperationOutcome" });
    // An authenticated request counts in its organization's bucket, not the client's.
    const authed = await at(ip, "/api/organization", { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId });
    expect(authed.status).toBe(200);
    expect(authed.headers.get("x-ratelimit-limit")).toBe("1000");
    expect((await at(crypto.randomUUID(), "/health")).status).toBe(200);
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

  it("derives Retry-After from the soonest slot expected to free, not from the lease length", async () => {
    const g = gate(`retry-${crypto.randomUUID()}`);
    const long = 600_000;
    // Nothing released yet, so nothing says how long a slot lasts: a short hint, not the lease.
    await g.acquireSlot("executions", "h1", 1, long, 0);
    expect(await g.acquireSlot("executions", "x", 1, long, 1_000)).toMatchObject({ acquired: false, retryAfter: 30 });
    await g.releaseSlot("executions", "h1", 10_000); // held 10 s
    await g.acquireSlot("executions", "h2", 2, long, 20_000);
    await g.acquireSlot("executions", "h3", 2, long, 21_000);
    // h2 started at 20 s and slots last about 10 s: it should free at 30 s.
    expect(await g.acquireSlot("executions", "x", 2, long, 23_000)).toMatchObject({ acquired: false, retryAfter: 7, inUse: 2 });
    // A holder past every recorded hold is expected to last about as long again, not to free at
    // any moment (a renewal does not restart its clock): h3 has held 19 s, h2 20 s.
    await g.acquireSlot("executions", "h2", 2, long, 40_000);
    expect(await g.acquireSlot("executions", "x", 2, long, 40_000)).toMatchObject({ acquired: false, retryAfter: 19 });
    // Never later than the soonest lease expiry.
    const short = gate(`retry-short-${crypto.randomUUID()}`);
    await short.acquireSlot("exports", "e", 1, 5_000, 0);
    expect(await short.acquireSlot("exports", "x", 1, 5_000, 2_000)).toMatchObject({ acquired: false, retryAfter: 3 });
  });

  it("expects a long run to free when runs that long did, not when the quick ones did", async () => {
    const g = gate(`retry-mixed-${crypto.randomUUID()}`);
    const long = 600_000;
    // Quick sync runs (50 ms each) and one 40 s run were released before.
    let t = 0;
    for (const held of [50, 50, 50, 40_000, 50]) {
      await g.acquireSlot("executions", `done-${t}`, 1, long, t);
      await g.releaseSlot("executions", `done-${t}`, t + held);
      t += held + 1_000;
    }
    // A run 2 s into its hold: of the holds as long as it has been, the 40 s one says 38 s more
    // (a mean over every hold said about 8 s; one counted from its start, 1 s once past it).
    await g.acquireSlot("executions", "running", 1, long, 100_000);
    expect(await g.acquireSlot("executions", "x", 1, long, 102_000)).toMatchObject({ acquired: false, retryAfter: 38 });
    expect(await g.acquireSlot("executions", "x", 1, long, 130_000)).toMatchObject({ acquired: false, retryAfter: 10 });
    // Exports learn their own hold times: none yet, so the first hint is the unknown one.
    await g.acquireSlot("exports", "e", 1, long, 100_000);
    expect(await g.acquireSlot("exports", "x", 1, long, 101_000)).toMatchObject({ acquired: false, retryAfter: 30 });
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
