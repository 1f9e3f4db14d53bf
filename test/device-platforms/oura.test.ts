// Oura end to end against the mock: link through OAuth → signed webhook → queue → readings;
// replay adds nothing; bad signatures store nothing; the GET challenge; sync pages; token
// refresh and rotation; tenancy (a state or a webhook of one org never lands in another).
import { beforeAll, describe, expect, it } from "vitest";
import { contextForOrg } from "../../src/main/context";
import { processDeviceEventBatch } from "../../src/features/devices/platforms/webhooks/queue";
import type { DeviceEventMessage } from "../../src/features/devices/platforms/webhooks/receive";
import { oura } from "../../src/features/devices/platforms/oura/adapter";
import { getLink, swapTokens } from "../../src/features/devices/platforms/oauth/link-store";
import { freshLink, REFRESH_MARGIN_MS } from "../../src/features/devices/platforms/oauth/tokens";
import { callWithLinkTokens } from "../../src/features/devices/platforms/oauth/sync-calls";
import { deviceOAuthStates } from "../../src/features/devices/platforms/oauth/tables";
import { and, eq } from "drizzle-orm";
import { platformServices } from "../../src/main/device-platform-services";
import { call, createTenant, type Tenant } from "../support/tenants";
import { OURA_ORIGIN, ouraMock, ouraSignedHeaders } from "./mocks/oura";
import { mockNetwork } from "./mocks/vendor-mock";
import { configure, env, installWorld, linkDevice, type PlatformWorld, postWebhook, replay, settled, unconfigure, webhookEvents } from "./support";

const KIND = "smart_ring";
const SECRET = "oura-secret";
const mock = ouraMock("oura-client", SECRET);
const creds = {
  clientId: "oura-client",
  clientSecret: SECRET,
  extra: {
    authorize_url: `${OURA_ORIGIN}/oauth/authorize`,
    token_url: `${OURA_ORIGIN}/oauth/token`,
    revoke_url: `${OURA_ORIGIN}/oauth/revoke`,
    api_base_url: OURA_ORIGIN,
    webhook_verification_token: "verify-me",
  },
};
const user = { id: "oura-user-1" };
const notification = (objectId = "8f9a5221-639e-4a85-81cb-4065ef23f979", dataType = "daily_sleep", eventType = "create") =>
  JSON.stringify({ event_type: eventType, data_type: dataType, object_id: objectId, user_id: user.id, event_time: new Date().toISOString() });

let world: PlatformWorld;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  world = installWorld(mockNetwork(mock));
  a = await createTenant();
  b = await createTenant();
  configure(world, a.orgId, KIND, creds);
});

describe("Oura: linking", () => {
  it("authorizes with the org's client, exchanges the code, learns the user id and marks the device Active", async () => {
    const { authorizationUrl, response } = await linkDevice(a, KIND, mock, user);
    const url = new URL(authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${OURA_ORIGIN}/oauth/authorize`);
    expect(url.searchParams.get("client_id")).toBe("oura-client");
    expect(url.searchParams.get("scope")).toContain("daily");
    expect(url.searchParams.get("redirect_uri")).toBe(`http://localhost/api/v1/device-platforms/${KIND}/${a.orgId}/oauth/callback`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ status: "linked", device_id: "dev-1", patient_id: "pat-1", platform_user_id: user.id });
    expect(world.statuses).toContainEqual({ orgId: a.orgId, deviceId: "dev-1", status: "active", reason: undefined });
    const links = (await (await a.fetch("/api/v1/device-platforms/links")).json()) as { links: { device_id: string; status: string }[]; total_count: number };
    expect(links.total_count).toBe(1);
    expect(links.links[0]).toMatchObject({ device_id: "dev-1", status: "active" });
    expect(JSON.stringify(links)).not.toContain("access");
  });

  it("a state is single use, and a state of org A cannot complete at org B's callback", async () => {
    configure(world, b.orgId, KIND, creds);
    const started = await a.fetch(`/api/v1/device-platforms/${KIND}/authorizations`, { method: "POST", json: { patient_id: "pat-9", device_id: "dev-9" } });
    const { authorization_url } = (await started.json()) as { authorization_url: string };
    const consent = mock.consent(user, authorization_url);
    const atB = await call(`/api/v1/device-platforms/${KIND}/${b.orgId}/oauth/callback?code=${consent.code}&state=${consent.state}`);
    expect(atB.status).toBe(400);
    expect(((await atB.json()) as { error: { code: string } }).error.code).toBe("STATE_INVALID");
    // The right org still works once, then the state is gone.
    const atA = await call(`/api/v1/device-platforms/${KIND}/${a.orgId}/oauth/callback?code=${consent.code}&state=${consent.state}`);
    expect(atA.status).toBe(200);
    const again = await call(`/api/v1/device-platforms/${KIND}/${a.orgId}/oauth/callback?code=${consent.code}&state=${consent.state}`);
    expect(again.status).toBe(400);
    unconfigure(world, b.orgId, KIND);
  });

  it("a refused code, a denied consent and a missing state are 4xx in the documented shape", async () => {
    const started = await a.fetch(`/api/v1/device-platforms/${KIND}/authorizations`, { method: "POST", json: { patient_id: "pat-2", device_id: "dev-2" } });
    const { authorization_url } = (await started.json()) as { authorization_url: string };
    const state = new URL(authorization_url).searchParams.get("state");
    const bad = await call(`/api/v1/device-platforms/${KIND}/${a.orgId}/oauth/callback?code=not-a-code&state=${state}`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("AUTHORIZATION_CODE_REJECTED");
    const noState = await call(`/api/v1/device-platforms/${KIND}/${a.orgId}/oauth/callback?code=x`);
    expect(noState.status).toBe(400);
    const unconfigured = await b.fetch(`/api/v1/device-platforms/${KIND}/authorizations`, { method: "POST", json: { patient_id: "p", device_id: "d" } });
    expect(unconfigured.status).toBe(404);
    const invalid = await a.fetch(`/api/v1/device-platforms/${KIND}/authorizations`, { method: "POST", json: { patient_id: "" } });
    expect(invalid.status).toBe(400);
  });

  it("a state past its 10 minutes is 400 STATE_EXPIRED, and used up", async () => {
    const started = await a.fetch(`/api/v1/device-platforms/${KIND}/authorizations`, { method: "POST", json: { patient_id: "pat-3", device_id: "dev-3" } });
    const { authorization_url } = (await started.json()) as { authorization_url: string };
    const consent = mock.consent(user, authorization_url);
    await a.ctx.db.update(deviceOAuthStates).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where(and(eq(deviceOAuthStates.orgId, a.orgId), eq(deviceOAuthStates.state, consent.state)));
    const expired = await call(`/api/v1/device-platforms/${KIND}/${a.orgId}/oauth/callback?code=${consent.code}&state=${consent.state}`);
    expect(expired.status).toBe(400);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe("STATE_EXPIRED");
    const again = await call(`/api/v1/device-platforms/${KIND}/${a.orgId}/oauth/callback?code=${consent.code}&state=${consent.state}`);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("STATE_INVALID");
    expect(await getLink(a.ctx, "dev-3")).toBeUndefined();
  });
});

describe("Oura: webhooks", () => {
  it("answers the GET challenge with the configured verification token only", async () => {
    const ok = await call(`/api/v1/webhooks/devices/${KIND}/${a.orgId}?verification_token=verify-me&challenge=c-123`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ challenge: "c-123" });
    expect((await call(`/api/v1/webhooks/devices/${KIND}/${a.orgId}?verification_token=wrong&challenge=c-123`)).status).toBe(401);
  });

  it("a signed notification is queued, fetched by id and mapped; a replay adds nothing", async () => {
    const body = notification();
    const headers = ouraSignedHeaders(SECRET, body);
    const res = await postWebhook(KIND, a.orgId, body, headers);
    expect(res.status).toBe(200);
    const ack = (await res.json()) as { status: string; event_id: string };
    expect(ack.status).toBe("queued");
    const event = await settled(a, ack.event_id);
    expect(event).toMatchObject({ status: "processed", readings: 2 }); // dev-1 and dev-9 are both linked to the user
    const scores = world.readings(a.orgId).filter((r) => r.metric === "sleep_score");
    expect(scores.map((r) => [r.deviceId, r.value, r.sourceRecordId]).sort()).toEqual([
      ["dev-1", 64, "8f9a5221-639e-4a85-81cb-4065ef23f979"],
      ["dev-9", 64, "8f9a5221-639e-4a85-81cb-4065ef23f979"],
    ]);
    const before = world.ingested.length;
    await replay(a, KIND, body, headers);
    expect(world.ingested.length).toBe(before);
    expect((await settled(a, ack.event_id)).replays).toBe(1);
  });

  it("a queue redelivery of a processed message adds nothing and is no replay", async () => {
    const body = notification("ds-2", "daily_sleep", "update");
    const ack = (await (await postWebhook(KIND, a.orgId, body, ouraSignedHeaders(SECRET, body))).json()) as { event_id: string };
    expect(await settled(a, ack.event_id)).toMatchObject({ status: "processed", readings: 2 });
    const before = world.ingested.length;
    // The same message as the webhook queued it, delivered to the consumer again (Queues deliver at least once).
    const message = { orgId: a.orgId, eventId: ack.event_id, delivery: { kind: KIND, body, receivedAt: new Date().toISOString() } };
    const acked: string[] = [];
    const batch = { queue: "cdis-device-events", messages: [{ id: "m1", timestamp: new Date(), attempts: 2, body: message, ack: () => acked.push("m1"), retry: () => {} }] } as unknown as MessageBatch<DeviceEventMessage>;
    await processDeviceEventBatch(batch, env, contextForOrg);
    expect(acked).toEqual(["m1"]);
    expect(world.ingested.length).toBe(before);
    expect(await settled(a, ack.event_id)).toMatchObject({ status: "processed", readings: 2, replays: 0 });
  });

  it("a batch's deliveries are recorded together, their readings stored in one ingest; a replay in it is counted, a failing one settles alone", async () => {
    const message = (eventId: string, body: string) => ({ id: eventId, timestamp: new Date(), attempts: 1, body: { orgId: a.orgId, eventId, delivery: { kind: KIND, body, receivedAt: new Date().toISOString() } } });
    const first = notification();
    const second = notification("ds-2", "daily_sleep", "update");
    const unknown = notification("no-such-document");
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const acked: string[] = [];
    const retried: string[] = [];
    const messages = [message(ids[0]!, first), message(ids[1]!, first), message(ids[2]!, unknown), message(ids[3]!, second)].map((m) => ({ ...m, ack: () => acked.push(m.id), retry: () => retried.push(m.id) }));
    const before = world.ingested.length;
    await processDeviceEventBatch({ queue: "cdis-device-events", messages } as unknown as MessageBatch<DeviceEventMessage>, env, contextForOrg);
    expect(acked.sort()).toEqual([...ids].sort());
    expect(retried).toEqual([]);
    // One ingest for both documents, each for both linked devices.
    expect(world.ingested.length).toBe(before + 1);
    expect(world.ingested.at(-1)!.readings.map((r) => [r.deviceId, r.value]).sort()).toEqual([
      ["dev-1", 64],
      ["dev-1", 71],
      ["dev-9", 64],
      ["dev-9", 71],
    ]);
    const events = await webhookEvents(a);
    const byId = (id: string) => events.find((e) => e.id === id);
    expect(byId(ids[0]!)).toMatchObject({ status: "processed", readings: 2, replays: 1 });
    expect(byId(ids[1]!)).toBeUndefined(); // the replay: counted on the first delivery, not recorded
    expect(byId(ids[2]!)).toMatchObject({ status: "dead" }); // the vendor has no such document (404): not retried
    expect(byId(ids[3]!)).toMatchObject({ status: "processed", readings: 2 });
  });

  it("a delivery the vendor refuses 5 times is dead, and the linked devices' sync logs show it failed (another org sees nothing)", async () => {
    const body = notification("ds-2", "daily_sleep", "update");
    const eventId = crypto.randomUUID();
    const delivery = { kind: KIND, body, receivedAt: new Date().toISOString() };
    const retried: number[] = [];
    mock.throttleNext(100, { "retry-after": "1" });
    // The queue's 5 deliveries of the message (max_retries = 5), each answered 429 by Oura.
    for (let attempts = 1; attempts <= 5; attempts++) {
      const message = { id: eventId, timestamp: new Date(), attempts, body: { orgId: a.orgId, eventId, delivery }, ack: () => {}, retry: () => retried.push(attempts) };
      await processDeviceEventBatch({ queue: "cdis-device-events", messages: [message] } as unknown as MessageBatch<DeviceEventMessage>, env, contextForOrg);
    }
    mock.throttleNext(0);
    expect(retried).toEqual([1, 2, 3, 4]);
    expect((await webhookEvents(a)).find((e) => e.id === eventId)).toMatchObject({ status: "dead", attempts: 5 });
    for (const deviceId of ["dev-1", "dev-9"]) {
      const res = await a.fetch(`/api/v1/devices/${deviceId}/sync-logs`);
      expect(res.status, await res.clone().text()).toBe(200);
      const logs = ((await res.json()) as { sync_logs: { state: string; data_types: { data_type: string; state: string; errors: { reason: string; record: string }[] }[] }[] }).sync_logs;
      const dead = logs.find((l) => l.data_types.some((t) => t.errors.some((e) => e.record === `webhook-event/${eventId}`)));
      expect(dead).toMatchObject({ state: "failed", data_types: [{ data_type: "daily_sleep", state: "failed" }] });
      expect(dead?.data_types[0]?.errors[0]?.reason).toMatch(/dead after 5 attempts: .*HTTP 429/);
    }
    expect((await b.fetch("/api/v1/devices/dev-1/sync-logs")).status).toBe(404);
  });

  it("wrong secret, tampered body, stale timestamp, missing header → 401 and nothing stored", async () => {
    const body = notification("ds-2");
    const before = (await webhookEvents(a)).length;
    const cases = [
      ouraSignedHeaders("not-the-secret", body),
      { ...ouraSignedHeaders(SECRET, body.replace("ds-2", "ds-3")) },
      ouraSignedHeaders(SECRET, body, String(Math.floor(Date.now() / 1000) - 3600)),
      { "content-type": "application/json", "x-oura-timestamp": String(Math.floor(Date.now() / 1000)) },
    ];
    // The second case is signed over ds-3 and sends ds-2: a tampered body.
    for (const h of cases) {
      const res = await postWebhook(KIND, a.orgId, body, h);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SIGNATURE_INVALID");
    }
    expect((await webhookEvents(a)).length).toBe(before);
  });

  it("unknown event types are acknowledged as ignored and recorded with that reason; a non-JSON body is 400", async () => {
    const body = JSON.stringify({ event_type: "create", data_type: "ring_configuration", object_id: "x", user_id: user.id });
    const res = await postWebhook(KIND, a.orgId, body, ouraSignedHeaders(SECRET, body));
    expect(res.status).toBe(200);
    const ack = (await res.json()) as { status: string; event_id: string };
    expect(ack.status).toBe("ignored");
    expect(await settled(a, ack.event_id)).toMatchObject({ status: "no_readings", error: expect.stringContaining("the body names no Oura event the adapter reads (type create, fields event_type, data_type") });
    const junk = "not json";
    expect((await postWebhook(KIND, a.orgId, junk, ouraSignedHeaders(SECRET, junk))).status).toBe(400);
  });

  it("a delete notification hands the record id to the device core for removal", async () => {
    const body = notification("8f9a5221-639e-4a85-81cb-4065ef23f979", "daily_sleep", "delete");
    const ack = (await (await postWebhook(KIND, a.orgId, body, ouraSignedHeaders(SECRET, body))).json()) as { event_id: string };
    expect(await settled(a, ack.event_id)).toMatchObject({ status: "processed", deleted: 2 });
    expect(world.ingested.flatMap((i) => i.deleted)).toContainEqual({ deviceId: "dev-1", sourceRecordId: "8f9a5221-639e-4a85-81cb-4065ef23f979" });
  });

  it("org A's webhook never lands in org B: B without the platform is 401 (as a bad signature), B with another secret is 401, B with the same app has no link", async () => {
    const body = notification("ds-2");
    expect((await postWebhook(KIND, b.orgId, body, ouraSignedHeaders(SECRET, body))).status).toBe(401);
    configure(world, b.orgId, KIND, { ...creds, clientSecret: "b-secret" });
    expect((await postWebhook(KIND, b.orgId, body, ouraSignedHeaders(SECRET, body))).status).toBe(401);
    configure(world, b.orgId, KIND, creds);
    const ack = (await (await postWebhook(KIND, b.orgId, body, ouraSignedHeaders(SECRET, body))).json()) as { event_id: string };
    expect(await settled(b, ack.event_id)).toMatchObject({ status: "no_readings", readings: 0, error: `no device is linked to Oura user ${user.id}` });
    expect(world.readings(b.orgId)).toEqual([]);
    expect((await webhookEvents(a)).some((e) => e.id === ack.event_id)).toBe(false);
    unconfigure(world, b.orgId, KIND);
  });

  it("vendor 429s retry in the consumer with the vendor's delay, visible on the event", async () => {
    mock.throttleNext(1, { "retry-after": "1" });
    const body = notification("ds-2", "daily_sleep", "update");
    const ack = (await (await postWebhook(KIND, a.orgId, body, ouraSignedHeaders(SECRET, body))).json()) as { event_id: string };
    const event = await settled(a, ack.event_id, 20_000);
    expect(event.status).toBe("processed");
    expect(event.readings).toBe(2);
  });
});

describe("Oura: sync pages and tokens", () => {
  it("fetchPage follows next_token through the vendor's pages", async () => {
    const data = a.ctx;
    const link = (await getLink(data, "dev-1"))!;
    const call = { credentials: creds, tokens: link.tokens, fetch: platformServices(data.env).fetch(data.env) };
    const device = { deviceId: "dev-1", patientId: "pat-1", platformUserId: user.id };
    const first = await oura.fetchPage(call, device, { dataType: "daily_sleep", from: "2024-01-15", to: "2024-01-16" });
    expect(first.readings.map((r) => r.value)).toEqual([64]);
    expect(first.nextCursor).toBe("1");
    const second = await oura.fetchPage(call, device, { dataType: "daily_sleep", from: "2024-01-15", to: "2024-01-16", cursor: first.nextCursor });
    expect(second.readings.map((r) => r.value)).toEqual([71]);
    expect(second.nextCursor).toBeUndefined();
    mock.throttleNext(1, { "retry-after": "42" });
    await expect(oura.fetchPage(call, device, { dataType: "daily_sleep", from: "2024-01-15", to: "2024-01-16" })).rejects.toMatchObject({ kind: "rate_limited", retryAfterSeconds: 42 });
  });

  it("two concurrent refreshes spend the single-use refresh token once and both get the new pair", async () => {
    const data = a.ctx;
    const link = (await getLink(data, "dev-1"))!;
    const c = { data, platform: oura, credentials: creds, fetch: platformServices(data.env).fetch(data.env) };
    const callsBefore = mock.refreshCalls;
    const [x, y] = await Promise.all([freshLink(data, oura, creds, c.fetch, link, true), freshLink(data, oura, creds, c.fetch, link, true)]);
    expect(mock.refreshCalls - callsBefore).toBe(1);
    expect(x.tokens.refreshToken).toBe(y.tokens.refreshToken);
    expect(x.tokens.refreshToken).not.toBe(link.tokens.refreshToken);
    const stored = (await getLink(data, "dev-1"))!;
    expect(stored.tokens).toEqual(x.tokens);
    expect(stored.version).toBe(link.version + 1);
    // The stored pair works: the next refresh with it succeeds (the old one is spent).
    const next = await freshLink(data, oura, creds, c.fetch, stored, true);
    expect(next.version).toBe(stored.version + 1);
    // A caller still holding the old version gets the stored pair, without spending anything at the vendor.
    const calls = mock.refreshCalls;
    const stale = await freshLink(data, oura, creds, c.fetch, link, true);
    expect(stale.tokens).toEqual(next.tokens);
    expect(mock.refreshCalls).toBe(calls);
  });

  it("an access token the vendor expired early is refreshed on the 401 and the event still processes", async () => {
    mock.expireAccessTokens();
    const refreshes = mock.refreshCalls;
    const body = notification("sleep-abc123", "sleep", "create");
    const ack = (await (await postWebhook(KIND, a.orgId, body, ouraSignedHeaders(SECRET, body))).json()) as { event_id: string };
    const event = await settled(a, ack.event_id);
    expect(event.status).toBe("processed");
    expect(event.readings).toBeGreaterThan(10);
    expect(mock.refreshCalls).toBeGreaterThan(refreshes);
  });

  it("unlinking revokes at the vendor and forgets the tokens", async () => {
    const res = await a.fetch("/api/v1/device-platforms/links/dev-9", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ revoked: true, revocation: "revoked" });
    expect(mock.revoked.length).toBe(1);
    expect(await getLink(a.ctx, "dev-9")).toBeUndefined();
    expect((await a.fetch("/api/v1/device-platforms/links/dev-9", { method: "DELETE" })).status).toBe(404);
    expect((await b.fetch("/api/v1/device-platforms/links/dev-1", { method: "DELETE" })).status).toBe(404);
  });

  it("refreshes before expiry: inside the 5-minute margin, not outside it", async () => {
    const data = a.ctx;
    const f = platformServices(data.env).fetch(data.env);
    const expiringIn = async (ms: number) => {
      const link = (await getLink(data, "dev-1"))!;
      expect(await swapTokens(data, "dev-1", link.version, { ...link.tokens, expiresAt: new Date(Date.now() + ms).toISOString() })).toBe(true);
      return (await getLink(data, "dev-1"))!;
    };
    const calls = mock.refreshCalls;
    const later = await expiringIn(REFRESH_MARGIN_MS + 60_000);
    expect(await freshLink(data, oura, creds, f, later)).toBe(later);
    expect(mock.refreshCalls).toBe(calls);
    const soon = await expiringIn(REFRESH_MARGIN_MS - 60_000);
    const fresh = await freshLink(data, oura, creds, f, soon);
    expect(mock.refreshCalls).toBe(calls + 1);
    expect(fresh.version).toBe(soon.version + 1);
    expect(Date.parse(fresh.tokens.expiresAt ?? "")).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it("a refused refresh (invalid_grant) ends the link: inactive with the reason, and neither webhooks nor syncs call the vendor again", async () => {
    const data = a.ctx;
    const link = (await getLink(data, "dev-1"))!;
    // The vendor no longer knows the refresh token, and the access token has expired.
    await swapTokens(data, "dev-1", link.version, { accessToken: "expired", refreshToken: "spent-refresh-token", expiresAt: new Date(Date.now() - 60_000).toISOString() });
    const body = notification("ds-2", "daily_sleep", "update");
    const ack = (await (await postWebhook(KIND, a.orgId, body, ouraSignedHeaders(SECRET, body))).json()) as { event_id: string };
    expect(await settled(a, ack.event_id)).toMatchObject({ status: "processed", readings: 0 });
    expect(await getLink(data, "dev-1")).toMatchObject({ status: "inactive", statusReason: expect.stringContaining("invalid_grant") });
    expect(world.statuses.at(-1)).toMatchObject({ orgId: a.orgId, deviceId: "dev-1", status: "inactive" });
    const calls = mock.calls.length;
    const again = notification("8f9a5221-639e-4a85-81cb-4065ef23f979", "daily_sleep", "update");
    const next = (await (await postWebhook(KIND, a.orgId, again, ouraSignedHeaders(SECRET, again))).json()) as { event_id: string };
    expect(await settled(a, next.event_id)).toMatchObject({ status: "no_readings", readings: 0, error: expect.stringContaining(`the link of Oura user ${user.id} is inactive (revoked: token endpoint: invalid_grant`) });
    // A manual sync reaches the platform through this port: refused before any vendor call.
    await expect(callWithLinkTokens(data, "dev-1", async () => "never")).rejects.toMatchObject({ kind: "revoked", message: expect.stringContaining("inactive") });
    expect(mock.calls.length).toBe(calls);
  });
});
