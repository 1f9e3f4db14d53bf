// Polar AccessLink and Suunto end to end against their mocks: linking (Polar's user
// registration and x_user_id; Suunto's JWT username), signed webhooks (Polar's unsigned PING,
// notify-only fetch of the url; Suunto's inline workout), replays, bad signatures, sync pages.
import { beforeAll, describe, expect, it } from "vitest";
import created from "../fixtures/wearables/suunto-workout-created.json";
import { getLink } from "../../src/features/devices/platforms/oauth/link-store";
import { polar as polarPlatform } from "../../src/features/devices/platforms/polar/adapter";
import { suunto } from "../../src/features/devices/platforms/suunto/adapter";
import { platformServices } from "../../src/main/device-platform-services";
import { createTenant, type Tenant } from "../support/tenants";
import { POLAR_ORIGIN, polarMock, polarSignedHeaders } from "./mocks/polar";
import { SUBSCRIPTION_KEY, SUUNTO_ORIGIN, suuntoMock, suuntoSignedHeaders } from "./mocks/suunto";
import { mockNetwork } from "./mocks/vendor-mock";
import { configure, installWorld, linkDevice, type PlatformWorld, postWebhook, replay, settled, webhookEvents } from "./support";

const polar = polarMock();
const suuntoCloud = suuntoMock();
const polarCreds = {
  clientId: "polar-client",
  clientSecret: "polar-secret",
  extra: { authorize_url: `${POLAR_ORIGIN}/oauth2/authorization`, token_url: `${POLAR_ORIGIN}/v2/oauth2/token`, api_base_url: POLAR_ORIGIN, webhook_signature_secret: "polar-signature-key" },
};
const suuntoCreds = {
  clientId: "suunto-client",
  clientSecret: "suunto-secret",
  extra: { authorize_url: `${SUUNTO_ORIGIN}/oauth/authorize`, token_url: `${SUUNTO_ORIGIN}/oauth/token`, api_base_url: SUUNTO_ORIGIN, subscription_key: SUBSCRIPTION_KEY, webhook_secret: "suunto-notify" },
};

let world: PlatformWorld;
let t: Tenant;

beforeAll(async () => {
  world = installWorld(mockNetwork(polar, suuntoCloud));
  t = await createTenant();
  configure(world, t.orgId, "training_platform", polarCreds);
  configure(world, t.orgId, "outdoor_watch", suuntoCreds);
});

describe("Polar AccessLink", () => {
  const notification = JSON.stringify({ event: "EXERCISE", user_id: 475, entity_id: "ABC123", timestamp: "2024-01-15T14:22:24Z", url: `${POLAR_ORIGIN}/v3/exercises/ABC123` });

  it("links with Basic client auth, registers the user and takes x_user_id as the user id", async () => {
    const { response } = await linkDevice(t, "training_platform", polar, { id: "475" }, { patientId: "pat-p", deviceId: "dev-polar" });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ platform_user_id: "475" });
    expect(polar.registered).toEqual(["dev-polar"]);
    expect((await getLink(t.ctx, "dev-polar"))?.tokens.refreshToken).toBeUndefined();
  });

  it("answers an unsigned PING, but nothing else unsigned", async () => {
    const ping = await postWebhook("training_platform", t.orgId, JSON.stringify({ event: "PING", timestamp: "2024-01-15T14:22:24Z" }), { "content-type": "application/json" });
    expect(ping.status).toBe(200);
    expect((await postWebhook("training_platform", t.orgId, notification, { "content-type": "application/json" })).status).toBe(401);
  });

  it("a signed EXERCISE notification fetches the url; local start time with its offset; replay and bad signature add nothing", async () => {
    const res = await postWebhook("training_platform", t.orgId, notification, polarSignedHeaders("polar-signature-key", notification));
    const event = await settled(t, ((await res.json()) as { event_id: string }).event_id);
    expect(event).toMatchObject({ status: "processed", readings: 4 });
    const calories = world.readings(t.orgId).find((r) => r.platform === "training_platform" && r.metric === "calories");
    expect(calories).toMatchObject({ value: 650, unit: "kcal", time: { start: "2024-01-15T08:00:00+01:00", end: "2024-01-15T09:00:00+01:00" }, sourceRecordId: "ABC123" });
    const before = (await webhookEvents(t)).length;
    const readings = world.readings(t.orgId).length;
    await replay(t, "training_platform", notification, polarSignedHeaders("polar-signature-key", notification));
    expect(world.readings(t.orgId).length).toBe(readings);
    expect((await postWebhook("training_platform", t.orgId, notification, polarSignedHeaders("wrong-key", notification))).status).toBe(401);
    expect((await webhookEvents(t)).length).toBe(before);
  });

  it("a notification whose url leaves the AccessLink host is not fetched with the user's token", async () => {
    const body = JSON.stringify({ event: "EXERCISE", user_id: 475, entity_id: "X", url: "http://127.0.0.1:9999/steal" });
    const res = await postWebhook("training_platform", t.orgId, body, polarSignedHeaders("polar-signature-key", body));
    expect(await settled(t, ((await res.json()) as { event_id: string }).event_id)).toMatchObject({
      status: "no_readings",
      readings: 0,
      error: 'the exercise event of Polar AccessLink user 475 gave no readings: the notification\'s url "http://127.0.0.1:9999/steal" is not on AccessLink\'s host: not fetched with the user\'s token',
    });
  });

  it("fetchPage: exercises and nights inside the range (AccessLink has no paging), 429 with Polar's delay", async () => {
    const link = (await getLink(t.ctx, "dev-polar"))!;
    const call = { credentials: polarCreds, tokens: link.tokens, fetch: platformServices(t.ctx.env).fetch(t.ctx.env) };
    const device = { deviceId: "dev-polar", patientId: "pat-p" };
    const january = { from: "2024-01-10T00:00:00Z", to: "2024-01-20T00:00:00Z" };
    const exercises = await polarPlatform.fetchPage(call, device, { dataType: "exercise", ...january });
    expect(exercises.readings.find((r) => r.metric === "calories")).toMatchObject({ value: 650, sourceRecordId: "ABC123" });
    expect(exercises.nextCursor).toBeUndefined();
    expect((await polarPlatform.fetchPage(call, device, { dataType: "exercise", from: "2024-02-01T00:00:00Z", to: "2024-02-10T00:00:00Z" })).readings).toEqual([]);
    // Two nights in AccessLink's Nights model: one inside the range, one outside.
    polar.nights.set("2024-01-15", { polar_user: "https://www.polaraccesslink.com/v3/users/475", date: "2024-01-15", sleep_start_time: "2024-01-14T23:10:00+01:00", sleep_end_time: "2024-01-15T07:05:00+01:00", light_sleep: 15_000, deep_sleep: 5_400, rem_sleep: 6_300, sleep_score: 82 });
    polar.nights.set("2023-11-01", { polar_user: "https://www.polaraccesslink.com/v3/users/475", date: "2023-11-01", sleep_start_time: "2023-10-31T23:00:00+01:00", sleep_end_time: "2023-11-01T07:00:00+01:00", light_sleep: 14_000, deep_sleep: 5_000, rem_sleep: 6_000, sleep_score: 75 });
    const nights = await polarPlatform.fetchPage(call, device, { dataType: "sleep", ...january });
    // The January night only (the November one is outside the range): 15000 + 5400 + 6300 s asleep.
    expect(nights.readings.filter((r) => r.metric === "sleep").map((r) => [r.value, r.sourceRecordId])).toEqual([[26_700, "dev-polar/sleep-2024-01-15"]]); // a night has no id of its own: the device scopes it
    polar.throttleNext(1, { "retry-after": "15" });
    await expect(polarPlatform.fetchPage(call, device, { dataType: "exercise", ...january })).rejects.toMatchObject({ kind: "rate_limited", retryAfterSeconds: 15 });
  });

  it("unlink deletes the user registration", async () => {
    expect((await t.fetch("/api/v1/device-platforms/links/dev-polar", { method: "DELETE" })).status).toBe(200);
    expect(polar.deleted).toEqual(["475"]);
  });
});

describe("Suunto", () => {
  const body = JSON.stringify(created);

  it("links and takes the username from the JWT access token", async () => {
    const { response } = await linkDevice(t, "outdoor_watch", suuntoCloud, { id: "johndoe123" }, { patientId: "pat-s", deviceId: "dev-suunto" });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ platform_user_id: "johndoe123" });
  });

  it("a signed WORKOUT_CREATED is mapped inline (epoch ms + local offset); replay and bad signature add nothing", async () => {
    const res = await postWebhook("outdoor_watch", t.orgId, body, suuntoSignedHeaders("suunto-notify", body));
    expect(await settled(t, ((await res.json()) as { event_id: string }).event_id)).toMatchObject({ status: "processed", readings: 5 });
    const steps = world.readings(t.orgId).find((r) => r.platform === "outdoor_watch" && r.metric === "steps");
    expect(steps).toMatchObject({ value: 8500, time: { start: "2023-12-16T14:20:00+02:00", end: "2023-12-16T15:20:00+02:00" }, sourceRecordId: "67604889401b942184624cb8" });
    const readings = world.readings(t.orgId).length;
    await replay(t, "outdoor_watch", body, suuntoSignedHeaders("suunto-notify", body));
    expect(world.readings(t.orgId).length).toBe(readings);
    expect((await postWebhook("outdoor_watch", t.orgId, body.replace("8500", "9500"), suuntoSignedHeaders("suunto-notify", body))).status).toBe(401);
    const route = JSON.stringify({ type: "ROUTE_CREATED", username: "johndoe123" });
    const ignored = await postWebhook("outdoor_watch", t.orgId, route, suuntoSignedHeaders("suunto-notify", route));
    expect(((await ignored.json()) as { status: string }).status).toBe("ignored");
  });

  it("sync pages send the subscription key", async () => {
    const link = (await getLink(t.ctx, "dev-suunto"))!;
    const call = { credentials: suuntoCreds, tokens: link.tokens, fetch: platformServices(t.ctx.env).fetch(t.ctx.env) };
    const page = await suunto.fetchPage(call, { deviceId: "dev-suunto", patientId: "pat-s" }, { dataType: "workout", from: "2023-12-01T00:00:00Z", to: "2023-12-31T00:00:00Z" });
    expect(page.readings.map((r) => r.metric)).toEqual(["calories", "steps", "distance", "heart_rate", "active_minutes"]);
    const noKey = { ...call, credentials: { ...suuntoCreds, extra: { ...suuntoCreds.extra, subscription_key: "wrong" } } };
    await expect(suunto.fetchPage(noKey, { deviceId: "dev-suunto", patientId: "pat-s" }, { dataType: "workout", from: "2023-12-01T00:00:00Z", to: "2023-12-31T00:00:00Z" })).rejects.toMatchObject({ kind: "unauthorized" });
  });

  it("sync pages of 50 follow the offset to the end; a 429 is rate_limited with Suunto's delay", async () => {
    const link = (await getLink(t.ctx, "dev-suunto"))!;
    const call = { credentials: suuntoCreds, tokens: link.tokens, fetch: platformServices(t.ctx.env).fetch(t.ctx.env) };
    const device = { deviceId: "dev-suunto", patientId: "pat-s" };
    const range = { dataType: "workout", from: "2023-12-01T00:00:00Z", to: "2023-12-31T00:00:00Z" };
    const saved = suuntoCloud.workouts;
    suuntoCloud.workouts = Array.from({ length: 60 }, (_, i) => ({ ...created.workout, workoutKey: `w-${i}` }));
    const first = await suunto.fetchPage(call, device, range);
    expect(first.nextCursor).toBe("50");
    expect(new Set(first.readings.map((r) => r.sourceRecordId)).size).toBe(50);
    const second = await suunto.fetchPage(call, device, { ...range, cursor: first.nextCursor });
    expect(new Set(second.readings.map((r) => r.sourceRecordId))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => `w-${50 + i}`)));
    expect(second.nextCursor).toBeUndefined();
    suuntoCloud.workouts = saved;
    suuntoCloud.throttleNext(1, { "retry-after": "9" });
    await expect(suunto.fetchPage(call, device, range)).rejects.toMatchObject({ kind: "rate_limited", retryAfterSeconds: 9 });
  });

  it("unlink says what happened: Suunto has no revocation, so nothing is claimed revoked", async () => {
    const res = await t.fetch("/api/v1/device-platforms/links/dev-suunto", { method: "DELETE" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { revoked: boolean; revocation: string; detail: string };
    expect(body).toMatchObject({ revoked: false, revocation: "not_supported" });
    expect(body.detail).toContain("Suunto offers no revocation");
    expect(await getLink(t.ctx, "dev-suunto")).toBeUndefined();
  });
});
