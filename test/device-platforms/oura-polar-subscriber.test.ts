// Oura's and Polar's webhook registrations behind the subscriber endpoint Google Health uses
// (`PUT|GET|DELETE /api/v1/device-platforms/{kind}/subscriber`), through the device core's
// integrations (credentials sealed, never returned). Oura: one subscription per data type and
// event type, each verified by Oura's GET challenge against this service with the org's
// verification token; Polar: the client's one webhook, PINGed against this service, whose
// signature key (returned once) is kept so the next signed notification is accepted. Refusals:
// verification failing → 422, app credentials refused → 400, a missing token → 400; another org
// (even on the same vendor app) never sees or removes this org's registration.
import { beforeAll, describe, expect, it } from "vitest";
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { forgetWebhookCredentials } from "../../src/features/devices/platforms/webhooks/credential-cache";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { useDevicePlatformServices } from "../support/service-profile";
import { call, createTenant, type Tenant } from "../support/tenants";
import { OURA_ORIGIN, type OuraSubscription, ouraMock, ouraSubscriptionApi } from "./mocks/oura";
import { POLAR_ORIGIN, polarMock, polarSignedHeaders, polarWebhookApi } from "./mocks/polar";
import { mockNetwork } from "./mocks/vendor-mock";
import { postWebhook } from "./support";

const OURA_APP = { client_id: "oura-sub-client", client_secret: "oura-sub-secret" };
const POLAR_APP = { client_id: "polar-sub-client", client_secret: "polar-sub-secret" };
const ouraSubs: OuraSubscription[] = [];
const oura = ouraSubscriptionApi(OURA_APP.client_id, OURA_APP.client_secret, ouraSubs, mockNetwork(ouraMock(OURA_APP.client_id, OURA_APP.client_secret), polarMock(POLAR_APP.client_id, POLAR_APP.client_secret)));
const polar = polarWebhookApi(POLAR_APP.client_id, POLAR_APP.client_secret, oura.fetch);

/** The public URL the vendor calls; its path reaches this service. */
const endpoint = (kind: string, orgId: string) => `https://cdis.example/api/v1/webhooks/devices/${kind}/${orgId}`;
const localPath = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function integrate(t: Tenant, kind: string, credentials: Record<string, string>, settings: Record<string, string>) {
  const origin = kind === "smart_ring" ? OURA_ORIGIN : POLAR_ORIGIN;
  const res = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: kind, name: kind, credentials, settings: { api_base_url: origin, webhook_url: endpoint(kind, t.orgId), ...settings } } });
  expect(res.status, await res.clone().text()).toBe(201);
  forgetWebhookCredentials();
}

const subscriber = (t: Tenant, kind: string, method = "GET") => t.fetch(`/api/v1/device-platforms/${kind}/subscriber`, { method });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string; status: number } }).error;
const ourasAt = (orgId: string) => ouraSubs.filter((s) => s.callback_url === endpoint("smart_ring", orgId));

beforeAll(() => {
  useDevicePlatformServices({ ...devicePlatformServices, fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: polar.fetch }) });
  oura.verifyEndpoint = (url) => call(localPath(url));
  polar.deliver = (url, body, headers) => call(localPath(url), { method: "POST", body, headers });
});

describe("Oura webhook subscriptions", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await createTenant();
    await integrate(a, "smart_ring", { ...OURA_APP, webhook_verification_token: "verify-a" }, {});
  });

  it("GET before registering is 404 SUBSCRIBER_NOT_FOUND", async () => {
    const res = await subscriber(a, "smart_ring");
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe("SUBSCRIBER_NOT_FOUND");
  });

  it("PUT subscribes every mapped data type for create, update and delete; Oura verifies each against this service", async () => {
    const res = await subscriber(a, "smart_ring", "PUT");
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { created: boolean; state: string; data_types: string[]; subscriptions: { data_type: string; event_type: string; expires_at: string }[]; expires_at: string };
    expect(body).toMatchObject({ created: true, state: "ACTIVE", endpoint_uri: endpoint("smart_ring", a.orgId) });
    expect([...body.data_types].sort()).toEqual(["daily_activity", "daily_readiness", "daily_sleep", "daily_spo2", "heartrate", "sleep"]);
    expect(body.subscriptions).toHaveLength(18);
    expect(new Set(body.subscriptions.map((s) => s.event_type))).toEqual(new Set(["create", "update", "delete"]));
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now() + 80 * 86_400_000);
    expect(ourasAt(a.orgId)).toHaveLength(18);
    expect(oura.verifications.map((v) => v.status)).toEqual(Array(18).fill(200));
    expect(JSON.stringify(body)).not.toContain("verify-a");
  });

  it("a second PUT creates nothing; GET reports the subscriptions", async () => {
    const res = await subscriber(a, "smart_ring", "PUT");
    expect(await res.json()).toMatchObject({ created: false, state: "ACTIVE" });
    expect(ourasAt(a.orgId)).toHaveLength(18);
    const got = await subscriber(a, "smart_ring");
    expect(got.status).toBe(200);
    expect(((await got.json()) as { subscriptions: unknown[] }).subscriptions).toHaveLength(18);
  });

  it("another org on the same Oura app never sees or removes this org's subscriptions", async () => {
    const b = await createTenant();
    expect((await errorOf(await subscriber(b, "smart_ring"))).code).toBe("PLATFORM_NOT_CONFIGURED");
    await integrate(b, "smart_ring", { ...OURA_APP, webhook_verification_token: "verify-b" }, {});
    expect((await errorOf(await subscriber(b, "smart_ring"))).code).toBe("SUBSCRIBER_NOT_FOUND");
    expect((await subscriber(b, "smart_ring", "DELETE")).status).toBe(404);
    expect(ourasAt(a.orgId)).toHaveLength(18);
  });

  it("refusals: Oura's verification failing is 422, refused app credentials 400, no verification token 400 naming it", async () => {
    const e = await createTenant();
    // An organization id no one has: Oura's challenge gets 404.
    await integrate(e, "smart_ring", { ...OURA_APP, webhook_verification_token: "verify-e" }, { webhook_url: endpoint("smart_ring", "no-such-org") });
    const failed = await subscriber(e, "smart_ring", "PUT");
    expect(failed.status, await failed.clone().text()).toBe(422);
    expect(await errorOf(failed)).toMatchObject({ code: "PLATFORM_REJECTED", message: expect.stringContaining("verification failed") });
    const f = await createTenant();
    await integrate(f, "smart_ring", { client_id: OURA_APP.client_id, client_secret: "wrong", webhook_verification_token: "x" }, {});
    const refused = await subscriber(f, "smart_ring", "PUT");
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).code).toBe("PLATFORM_CREDENTIALS_REJECTED");
    const g = await createTenant();
    await integrate(g, "smart_ring", OURA_APP, {});
    const missing = await subscriber(g, "smart_ring", "PUT");
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await errorOf(missing))).toContain("credentials.webhook_verification_token");
  });

  it("DELETE removes this org's subscriptions at Oura; then GET and DELETE are 404", async () => {
    expect((await subscriber(a, "smart_ring", "DELETE")).status).toBe(204);
    expect(ourasAt(a.orgId)).toEqual([]);
    expect((await subscriber(a, "smart_ring")).status).toBe(404);
    expect((await subscriber(a, "smart_ring", "DELETE")).status).toBe(404);
  });
});

describe("Polar AccessLink webhook", () => {
  let a: Tenant;
  const notification = (orgId: string) => JSON.stringify({ event: "EXERCISE", user_id: 475, entity_id: `ex-${orgId}`, timestamp: "2024-01-15T14:22:24Z", url: `${POLAR_ORIGIN}/v3/exercises/ex` });

  beforeAll(async () => {
    a = await createTenant();
    await integrate(a, "training_platform", POLAR_APP, {});
  });

  it("GET before registering is 404 SUBSCRIBER_NOT_FOUND", async () => {
    expect((await errorOf(await subscriber(a, "training_platform"))).code).toBe("SUBSCRIBER_NOT_FOUND");
  });

  it("PUT creates the client's webhook (Polar's PING answered 200) and keeps its signature key: the next signed notification is accepted", async () => {
    const res = await subscriber(a, "training_platform", "PUT");
    expect(res.status, await res.clone().text()).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ created: true, state: "ACTIVE", endpoint_uri: endpoint("training_platform", a.orgId), data_types: ["EXERCISE", "SLEEP"], secret_set: true });
    expect(polar.pings).toEqual([{ url: endpoint("training_platform", a.orgId), signed: true, status: 200 }]);
    const key = polar.webhook?.signature_secret_key ?? "";
    expect(text).not.toContain(key);
    const body = notification(a.orgId);
    expect((await postWebhook("training_platform", a.orgId, body, polarSignedHeaders(key, body))).status).toBe(200);
    expect((await postWebhook("training_platform", a.orgId, body, polarSignedHeaders("another-key", body))).status).toBe(401);
  });

  it("a second PUT patches the webhook (no new key); GET reports it", async () => {
    const key = polar.webhook?.signature_secret_key;
    const res = await subscriber(a, "training_platform", "PUT");
    expect(await res.json()).toMatchObject({ created: false, state: "ACTIVE" });
    expect(polar.webhook?.signature_secret_key).toBe(key);
    const got = await subscriber(a, "training_platform");
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ name: polar.webhook?.id, data_types: ["EXERCISE", "SLEEP"], secret_set: true });
  });

  it("another org on the same AccessLink client never sees, removes or moves this org's webhook (409)", async () => {
    const b = await createTenant();
    await integrate(b, "training_platform", POLAR_APP, {});
    expect((await errorOf(await subscriber(b, "training_platform"))).code).toBe("SUBSCRIBER_NOT_FOUND");
    expect((await subscriber(b, "training_platform", "DELETE")).status).toBe(404);
    const moved = await subscriber(b, "training_platform", "PUT");
    expect(moved.status).toBe(409);
    expect((await errorOf(moved)).code).toBe("SUBSCRIBER_CONFLICT");
    expect(polar.webhook?.url).toBe(endpoint("training_platform", a.orgId));
  });

  it("refusals: refused client credentials are 400; an endpoint that fails Polar's PING is 422 and nothing is created", async () => {
    const f = await createTenant();
    await integrate(f, "training_platform", { ...POLAR_APP, client_secret: "wrong" }, {});
    const refused = await subscriber(f, "training_platform", "PUT");
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).code).toBe("PLATFORM_CREDENTIALS_REJECTED");
    expect((await subscriber(a, "training_platform", "DELETE")).status).toBe(204);
    const g = await createTenant();
    // A path no platform has: the PING gets 404. (Any organization id answers a PING alike, so
    // that the answer tells nobody which ids exist.)
    await integrate(g, "training_platform", POLAR_APP, { webhook_url: endpoint("no_such_platform", g.orgId) });
    const failed = await subscriber(g, "training_platform", "PUT");
    expect(failed.status, await failed.clone().text()).toBe(422);
    expect(await errorOf(failed)).toMatchObject({ code: "PLATFORM_REJECTED", message: expect.stringContaining("ping failed") });
    expect(polar.webhook).toBeUndefined();
  });

  it("DELETE removed it at Polar: GET and DELETE are 404", async () => {
    expect((await subscriber(a, "training_platform")).status).toBe(404);
    expect((await subscriber(a, "training_platform", "DELETE")).status).toBe(404);
  });
});
