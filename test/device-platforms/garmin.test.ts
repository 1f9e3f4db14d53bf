// Garmin end to end against the mock: OAuth 2.0 with PKCE, push (inline dailies) with the
// garmin-client-id check, stress sentinels absent, ping callback fetched unchanged, optional
// HMAC, permission change and deregistration → inactive, backfill 202 then 409, unlink.
import { createHmac } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import dailies from "../fixtures/wearables/garmin-dailies.json";
import { getLink } from "../../src/features/devices/platforms/oauth/link-store";
import { INLINE_BODY_MAX_CHARS } from "../../src/features/devices/platforms/webhooks/receive";
import { createTenant, type Tenant } from "../support/tenants";
import { GARMIN_ORIGIN, garminMock, garminPushHeaders } from "./mocks/garmin";
import { mockNetwork } from "./mocks/vendor-mock";
import { configure, deliver, installWorld, linkDevice, type PlatformWorld, postWebhook, replay, webhookEvents } from "./support";

const KIND = "sports_watch";
const CLIENT = "garmin-client";
const mock = garminMock(CLIENT, "garmin-secret");
const creds = {
  clientId: CLIENT,
  clientSecret: "garmin-secret",
  extra: { authorize_url: `${GARMIN_ORIGIN}/oauth2Confirm`, token_url: `${GARMIN_ORIGIN}/di-oauth2-service/oauth/token`, api_base_url: GARMIN_ORIGIN },
};
const USER = dailies.dailies[0]!.userId;

let world: PlatformWorld;
let t: Tenant;

const push = (body: string, headers = garminPushHeaders(CLIENT)) => deliver(t, KIND, body, headers);

beforeAll(async () => {
  world = installWorld(mockNetwork(mock));
  t = await createTenant();
  configure(world, t.orgId, KIND, creds);
});

describe("Garmin", () => {
  it("links with PKCE (S256) and learns the Garmin user id", async () => {
    const { authorizationUrl, response } = await linkDevice(t, KIND, mock, { id: USER });
    expect(new URL(authorizationUrl).searchParams.get("code_challenge_method")).toBe("S256");
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ platform_user_id: USER });
  });

  it("a dailies push is mapped inline: steps, distance, kcal, HR samples, stress and body battery", async () => {
    const event = await push(JSON.stringify(dailies));
    expect(event.status).toBe("processed");
    const readings = world.readings(t.orgId);
    const metric = (m: string) => readings.filter((r) => r.metric === m);
    expect(metric("steps")[0]).toMatchObject({ value: 8421, unit: "steps", time: { start: "2024-01-14T19:00:00-05:00", end: "2024-01-15T19:00:00-05:00" } });
    expect(metric("calories")[0]).toMatchObject({ value: 412, unit: "kcal" });
    expect(metric("active_minutes")[0]).toMatchObject({ value: 31 });
    expect(metric("heart_rate").map((r) => r.value)).toEqual([64, 58, 57, 59]);
    expect(metric("body_battery").map((r) => r.value)).toEqual([92, 21]);
    expect(metric("stress")[0]).toMatchObject({ value: 32, unit: "score" });
  });

  it("stress sentinels are absent readings that keep the sentinel, never numbers", async () => {
    const body = JSON.stringify({ stressDetails: [{ userId: USER, summaryId: "sd-1", startTimeInSeconds: 1705276800, startTimeOffsetInSeconds: 0, durationInSeconds: 540, timeOffsetStressLevelValues: { "0": 25, "180": -1, "360": -2 } }] });
    const before = world.readings(t.orgId).length;
    await push(body);
    const stress = world.readings(t.orgId).slice(before);
    expect(stress.map((r) => [r.value, r.absentReason, r.attributes?.garmin_sentinel])).toEqual([
      [25, undefined, undefined],
      [undefined, "not-performed", "off_wrist"],
      [undefined, "error", "large_motion"],
    ]);
  });

  it("a ping's callbackURL is fetched unchanged with the user's token", async () => {
    const callbackURL = `${GARMIN_ORIGIN}/wellness-api/rest/dailies?uploadStartTimeInSeconds=1705276800&uploadEndTimeInSeconds=1705363200&token=ping-token-1`;
    const before = world.readings(t.orgId).length;
    const event = await push(JSON.stringify({ dailies: [{ userId: USER, callbackURL }] }));
    expect(event.status).toBe("processed");
    expect(world.readings(t.orgId).length - before).toBe(event.readings);
    expect(mock.calls.some((c) => c.path === "/wellness-api/rest/dailies")).toBe(true);
  });

  it("a missing or foreign garmin-client-id is 401 and stores nothing; a replay adds nothing", async () => {
    const before = (await webhookEvents(t)).length;
    const body = JSON.stringify(dailies);
    expect((await postWebhook(KIND, t.orgId, body, { "content-type": "application/json" })).status).toBe(401);
    expect((await postWebhook(KIND, t.orgId, body, garminPushHeaders("someone-else"))).status).toBe(401);
    const readings = world.readings(t.orgId).length;
    await replay(t, KIND, body, garminPushHeaders(CLIENT));
    expect((await webhookEvents(t)).length).toBe(before);
    expect(world.readings(t.orgId).length).toBe(readings);
  });

  it("a push too large for a queue message is recorded before the acknowledgement; its replay answers duplicate", async () => {
    // A day of per-second heart rate: well over the body size the webhook queues inline.
    const samples = Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [String(i * 15), 60 + (i % 40)]));
    const body = JSON.stringify({ dailies: [{ ...dailies.dailies[0], summaryId: "big-day", timeOffsetHeartRateSamples: samples }] });
    expect(body.length).toBeGreaterThan(INLINE_BODY_MAX_CHARS);
    const event = await push(body);
    expect(event.status).toBe("processed");
    expect(event.readings).toBeGreaterThan(6000);
    const before = world.readings(t.orgId).length;
    const again = await postWebhook(KIND, t.orgId, body, garminPushHeaders(CLIENT));
    expect(await again.json()).toEqual({ status: "duplicate" });
    expect(world.readings(t.orgId).length).toBe(before);
  });

  it("with a signing secret configured, x-garmin-signature (hex HMAC-SHA256 of the body) is required", async () => {
    configure(world, t.orgId, KIND, { ...creds, extra: { ...creds.extra, webhook_signing_secret: "proxy-secret" } });
    const body = JSON.stringify({ hrv: [{ userId: USER, summaryId: "hrv-1", startTimeInSeconds: 1705276800, durationInSeconds: 28800, lastNightAvg: 44 }] });
    const sig = createHmac("sha256", "proxy-secret").update(body).digest("hex");
    expect((await postWebhook(KIND, t.orgId, body, garminPushHeaders(CLIENT))).status).toBe(401);
    expect((await postWebhook(KIND, t.orgId, body, { ...garminPushHeaders(CLIENT), "x-garmin-signature": sig.replace(/^./, "0") })).status).toBe(401);
    // Signed, but without the client id header or with another client's: still refused.
    expect((await postWebhook(KIND, t.orgId, body, { "content-type": "application/json", "x-garmin-signature": sig })).status).toBe(401);
    expect((await postWebhook(KIND, t.orgId, body, { ...garminPushHeaders("another-client"), "x-garmin-signature": sig })).status).toBe(401);
    expect(await push(body, { ...garminPushHeaders(CLIENT), "x-garmin-signature": sig })).toMatchObject({ status: "processed", readings: 1 });
    configure(world, t.orgId, KIND, creds);
  });

  it("backfill: 202 with the data to come by push, then 409 for the same window; bad windows are 400", async () => {
    const body = { data_types: ["dailies", "sleeps"], from: "2024-01-01T00:00:00Z", to: "2024-01-15T00:00:00Z" };
    const first = await t.fetch("/api/v1/device-platforms/links/dev-1/backfill", { method: "POST", json: body });
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ requested: ["dailies", "sleeps"], already_requested: [] });
    const again = await t.fetch("/api/v1/device-platforms/links/dev-1/backfill", { method: "POST", json: body });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("BACKFILL_ALREADY_REQUESTED");
    const wide = await t.fetch("/api/v1/device-platforms/links/dev-1/backfill", { method: "POST", json: { ...body, from: "2023-01-01T00:00:00Z" } });
    expect(wide.status).toBe(400);
    const unknown = await t.fetch("/api/v1/device-platforms/links/dev-1/backfill", { method: "POST", json: { ...body, data_types: ["nope"] } });
    expect(unknown.status).toBe(400);
    const other = await createTenant();
    expect((await other.fetch("/api/v1/device-platforms/links/dev-1/backfill", { method: "POST", json: body })).status).toBe(404);
  });

  it("a permission change without export permissions, then a deregistration, make the link inactive", async () => {
    await push(JSON.stringify({ userPermissionsChange: [{ userId: USER, permissions: ["HISTORICAL_DATA_EXPORT"] }] }));
    expect((await getLink(t.ctx, "dev-1"))?.status).toBe("inactive");
    expect(world.statuses.at(-1)).toMatchObject({ deviceId: "dev-1", status: "inactive" });
    const refused = await t.fetch("/api/v1/device-platforms/links/dev-1/backfill", { method: "POST", json: { from: "2024-02-01T00:00:00Z", to: "2024-02-02T00:00:00Z" } });
    expect(refused.status).toBe(409);
  });

  it("a deregistration alone makes the link inactive: later pushes for the user store nothing", async () => {
    const user = "garmin-dereg-user";
    const { response } = await linkDevice(t, KIND, mock, { id: user }, { patientId: "pat-2", deviceId: "dev-2" });
    expect(response.status, await response.clone().text()).toBe(200);
    expect((await getLink(t.ctx, "dev-2"))?.status).toBe("active");
    await push(JSON.stringify({ deregistrations: [{ userId: user }] }));
    expect((await getLink(t.ctx, "dev-2"))?.status).toBe("inactive");
    expect(world.statuses.at(-1)).toMatchObject({ deviceId: "dev-2", status: "inactive", reason: expect.stringContaining("deregist") });
    const before = world.readings(t.orgId).length;
    expect(await push(JSON.stringify({ dailies: dailies.dailies.map((d) => ({ ...d, userId: user, summaryId: "after-dereg" })) }))).toMatchObject({
      status: "no_readings",
      readings: 0,
      error: expect.stringContaining(`the link of Garmin user ${user} is inactive`),
    });
    expect(world.readings(t.orgId).length).toBe(before);
  });

  it("unlink deregisters the user at Garmin", async () => {
    const res = await t.fetch("/api/v1/device-platforms/links/dev-1", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ revoked: true, revocation: "revoked" });
    expect(mock.deregistered).toBe(1);
  });
});
