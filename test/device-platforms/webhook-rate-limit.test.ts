// Webhooks' own rate limit: verified deliveries count per organization and platform
// (LIMIT_WEBHOOK_PER_MINUTE), not in the per-client-IP bucket public routes share, so a vendor
// pushing from one address is not refused at the public limit; over the webhook limit the answer
// is 429 with Retry-After and nothing is queued; refused deliveries still count per client IP.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { call, createTenant, type Tenant } from "../support/tenants";
import { ouraMock, ouraSignedHeaders } from "./mocks/oura";
import { mockNetwork } from "./mocks/vendor-mock";
import { whoopSignedHeaders } from "./mocks/whoop";
import { configure, env, installWorld, type PlatformWorld, settled } from "./support";
import { withinOneMinuteWindow } from "../support/minute-window";

const OURA = "smart_ring";
const WHOOP = "recovery_strap";
const SECRET = "oura-secret";
const WHOOP_SECRET = "whoop-secret";
const app = buildApp();

let world: PlatformWorld;

beforeAll(() => {
  world = installWorld(mockNetwork(ouraMock("oura-client", SECRET)));
});

/** A new organization with Oura and WHOOP configured (each test its own: a window lasts the minute). */
async function configuredTenant(): Promise<Tenant> {
  const t = await createTenant();
  configure(world, t.orgId, OURA, { clientId: "oura-client", clientSecret: SECRET, extra: {} });
  configure(world, t.orgId, WHOOP, { clientId: "whoop-client", clientSecret: WHOOP_SECRET, extra: {} });
  return t;
}

let n = 0;
/** A distinct Oura notification for a vendor user nobody linked: the consumer records and settles it without vendor calls. */
const ouraNotification = () => JSON.stringify({ event_type: "create", data_type: "daily_sleep", object_id: `limit-${n++}`, user_id: "nobody-linked", event_time: new Date().toISOString() });
const whoopNotification = () => JSON.stringify({ user_id: 404, id: `limit-${n++}`, type: "sleep.updated", trace_id: crypto.randomUUID() });

const signed = (kind: string, body: string) => (kind === OURA ? ouraSignedHeaders(SECRET, body) : whoopSignedHeaders(WHOOP_SECRET, body));

/** Through the Worker with its own variables over the deployment's (as the foundation rate-limit test does). */
async function at(vars: Record<string, string>, ip: string, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), "cf-connecting-ip": ip } }), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const webhook = (vars: Record<string, string>, ip: string, t: Tenant, kind: string, body = kind === OURA ? ouraNotification() : whoopNotification(), headers = signed(kind, body)) =>
  at(vars, ip, `/api/v1/webhooks/devices/${kind}/${t.orgId}`, { method: "POST", body, headers });

/** Deliveries of `kind` the organization has recorded. */
const recorded = async (t: Tenant, kind: string) => ((await (await t.fetch(`/api/v1/device-platforms/webhook-events?kind=${kind}&limit=1`)).json()) as { total_count: number }).total_count;

const limits = (res: Response) => [res.headers.get("x-ratelimit-limit"), res.headers.get("x-ratelimit-remaining")];

describe("webhook rate limit", () => {
  it("accepts a burst above the public per-IP limit (300/min) from one address, and the address keeps its public budget", async () => {
    const a = await configuredTenant();
    const ip = { "cf-connecting-ip": crypto.randomUUID() };
    const answers = await Promise.all(
      Array.from({ length: 320 }, () => {
        const body = ouraNotification();
        return call(`/api/v1/webhooks/devices/${OURA}/${a.orgId}`, { method: "POST", body, headers: { ...signed(OURA, body), ...ip } });
      }),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(320).fill(200));
    expect(new Set(answers.map((r) => r.headers.get("x-ratelimit-limit")))).toEqual(new Set(["6000"]));
    expect(Math.min(...answers.map((r) => Number(r.headers.get("x-ratelimit-remaining"))))).toBe(6000 - 320);
    const acks = (await Promise.all(answers.map((r) => r.json()))) as { status: string }[];
    expect(acks.every((x) => x.status === "queued")).toBe(true);
    // The same address's public requests still have all of their per-IP window.
    const health = await call("/health", { headers: ip });
    expect(health.status).toBe(200);
    expect(limits(health)).toEqual(["300", "299"]);
  });

  it("is enforced per organization and platform: over it 429 with Retry-After, nothing queued; other orgs and platforms keep theirs", async () => {
    const [a, b] = [await configuredTenant(), await configuredTenant()];
    const vars = { LIMIT_WEBHOOK_PER_MINUTE: "3" };
    await withinOneMinuteWindow();
    const ip = crypto.randomUUID();
    const before = await recorded(a, WHOOP);
    const accepted: string[] = [];
    for (const remaining of ["2", "1", "0"]) {
      const res = await webhook(vars, ip, a, WHOOP);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(limits(res)).toEqual(["3", remaining]);
      accepted.push(((await res.json()) as { event_id: string }).event_id);
    }
    const over = await webhook(vars, ip, a, WHOOP);
    expect(over.status).toBe(429);
    expect(limits(over)).toEqual(["3", "0"]);
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Math.abs(Number(over.headers.get("x-ratelimit-reset")) - (Date.now() / 1000 + retryAfter))).toBeLessThan(2);
    expect(await over.json()).toMatchObject({ error: { code: "RATE_LIMITED", status: 429 } });
    // The three accepted deliveries are processed; the refused one was never queued.
    for (const id of accepted) await settled(a, id);
    await new Promise((r) => setTimeout(r, 300));
    expect(await recorded(a, WHOOP)).toBe(before + 3);
    // Another platform of the same org, and the same platform of another org, have their own windows.
    expect(limits(await webhook(vars, ip, a, OURA))).toEqual(["3", "2"]);
    const otherOrg = await webhook(vars, ip, b, WHOOP);
    expect(otherOrg.status).toBe(200);
    expect(limits(otherOrg)).toEqual(["3", "2"]);
  });

  it("counts refused deliveries per client IP (an unsigned flood cannot spend an organization's window), and public routes keep their limit", async () => {
    const b = await configuredTenant();
    const vars = { LIMIT_WEBHOOK_PER_MINUTE: "5", LIMIT_PUBLIC_PER_MINUTE: "2" };
    await withinOneMinuteWindow();
    const ip = crypto.randomUUID();
    const body = whoopNotification();
    const bad = await webhook(vars, ip, b, WHOOP, body, whoopSignedHeaders("wrong-secret", body));
    expect(bad.status).toBe(401);
    expect(limits(bad)).toEqual(["2", "1"]);
    expect((await at(vars, ip, "/health")).status).toBe(200);
    const refused = await at(vars, ip, "/health");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    // The address is over the public limit, yet its verified deliveries count in the organization's webhook window.
    const fresh = await webhook(vars, ip, b, OURA);
    expect(fresh.status).toBe(200);
    expect(limits(fresh)).toEqual(["5", "4"]);
    // Unsigned deliveries from this address are now refused at the public limit, and never reach the org's window.
    const unsigned = await webhook(vars, ip, b, OURA, ouraNotification(), { "content-type": "application/json" });
    expect(unsigned.status).toBe(429);
    expect(limits(await webhook(vars, crypto.randomUUID(), b, OURA))).toEqual(["5", "3"]);
  });
});
