// Google Health API end to end on the device core as the Worker wires it: link through Google's
// OAuth (PKCE, offline access) → manual sync over the dataPoints list endpoint with paging and a
// 429 → Observations with LOINC codes and UCUM units → the vitals endpoint and the timeline; the
// subscriber verification handshake (201 / 401); a notification with the subscriber's
// Authorization triggers an incremental sync for the linked user it names; a replay adds
// nothing; a bad Authorization stores nothing; the ECDSA signature when a key is configured;
// unlink revokes; another org sees none of it. Only Google's cloud is a mock.
import { beforeAll, describe, expect, it } from "vitest";
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { getLink } from "../../src/features/devices/platforms/oauth/link-store";
import { forgetWebhookCredentials } from "../../src/features/devices/platforms/webhooks/credential-cache";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { useDevicePlatformServices } from "../support/service-profile";
import { createTenant, type Tenant } from "../support/tenants";
import { GOOGLE_ORIGIN, googleHealthMock, googlePoints as P, googleWebhookHeaders } from "./mocks/google-health";
import { mockNetwork } from "./mocks/vendor-mock";
import { observations, syncLog, withCode } from "./device-core";
import { linkDevice, postWebhook, replay, settled, webhookEvents } from "./support";

const KIND = "activity_tracker";
const CLIENT = "google-client.apps.googleusercontent.com";
const SECRET = "google-secret";
const AUTHORIZATION = "Bearer subscriber-secret-0f3c";
const mock = googleHealthMock(CLIENT, SECRET);
const user = { id: "aBcD-1234-health" };
const settings = { authorize_url: `${GOOGLE_ORIGIN}/o/oauth2/v2/auth`, token_url: `${GOOGLE_ORIGIN}/token`, revoke_url: `${GOOGLE_ORIGIN}/revoke`, api_base_url: GOOGLE_ORIGIN };

const minutesAgo = (m: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - m * 60_000).toISOString();
const daysAgo = (d: number) => minutesAgo(d * 1440);

let a: Tenant;
let b: Tenant;
let aIntegration: string;
let patientId: string;
let deviceId: string;

async function integrate(t: Tenant, credentials: Record<string, string>, extra: Record<string, string> = {}) {
  const res = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: KIND, name: "Google Health", credentials: { client_id: CLIENT, client_secret: SECRET, ...credentials }, settings: { ...settings, ...extra } } });
  expect(res.status, await res.clone().text()).toBe(201);
  forgetWebhookCredentials();
  return ((await res.json()) as { id: string }).id;
}

async function newPatientDevice(t: Tenant) {
  const patient = ((await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Tracker" }] } })).json()) as { id: string }).id;
  const link = await t.fetch(`/api/v1/patients/${patient}/devices`, { method: "POST", json: { platform: KIND, name: "Pixel Watch" } });
  expect(link.status, await link.clone().text()).toBe(201);
  return { patientId: patient, deviceId: ((await link.json()) as { device_id: string }).device_id };
}

beforeAll(async () => {
  const network = mockNetwork(mock);
  useDevicePlatformServices({ ...devicePlatformServices, fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: network }) });
  a = await createTenant();
  b = await createTenant();
  aIntegration = await integrate(a, { webhook_authorization: AUTHORIZATION });
  ({ patientId, deviceId } = await newPatientDevice(a));
  // A week of the user's data (the sync's default window), in the discovery document's shapes.
  mock.add(user, "heart-rate", ...[10, 9, 8, 7, 6].map((m, i) => P.heartRate(minutesAgo(60 * 24 + m), 60 + i)));
  mock.add(user, "steps", P.steps(daysAgo(2), 812), P.steps(daysAgo(3), 95));
  mock.add(user, "distance", P.distance(daysAgo(2), 640_000));
  mock.add(user, "weight", P.weight(daysAgo(4), 81_250));
  mock.add(user, "oxygen-saturation", P.oxygenSaturation(daysAgo(1), 96.5));
  mock.add(user, "daily-oxygen-saturation", P.dailyOxygenSaturation(daysAgo(1), 95.2));
  mock.add(user, "daily-resting-heart-rate", P.dailyRestingHeartRate(daysAgo(1), 58));
  mock.add(user, "daily-heart-rate-variability", P.dailyHeartRateVariability(daysAgo(1), 41.5));
  mock.add(user, "heart-rate-variability", P.heartRateVariability(daysAgo(1), 38.2, 52.7));
  mock.add(user, "daily-respiratory-rate", P.dailyRespiratoryRate(daysAgo(1), 14.6));
  mock.add(user, "sleep", P.sleep(user, "3a7d9f2e-sleep-1", daysAgo(2), { light: 220, deep: 75, rem: 95, awake: 30 }));
});

describe("Google Health: linking", () => {
  it("authorizes at Google with PKCE and offline access, and the callback learns the Google Health user id", async () => {
    const { authorizationUrl, response } = await linkDevice(a, KIND, mock, user, { patientId, deviceId });
    const url = new URL(authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${GOOGLE_ORIGIN}/o/oauth2/v2/auth`);
    expect(url.searchParams.get("client_id")).toBe(CLIENT);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("access_type")).toBe("offline");
    expect(url.searchParams.get("prompt")).toBe("consent");
    expect(url.searchParams.get("scope")?.split(" ")).toEqual([
      "https://www.googleapis.com/auth/googlehealth.activity_and_fitness.readonly",
      "https://www.googleapis.com/auth/googlehealth.health_metrics_and_measurements.readonly",
      "https://www.googleapis.com/auth/googlehealth.sleep.readonly",
    ]);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ status: "linked", device_id: deviceId, platform_user_id: user.id });
  });
});

describe("Google Health: sync and backfill", () => {
  it("a manual sync reads every type over its range filter, page by page, into coded Observations", async () => {
    const res = await a.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: {} });
    expect(res.status, await res.clone().text()).toBe(202);
    const log = await syncLog(a, ((await res.json()) as { sync_id: string }).sync_id);
    expect(log.state, JSON.stringify(log)).toBe("completed");
    const hr = log.data_types.find((d) => d.data_type === "heart-rate");
    expect(hr).toMatchObject({ state: "completed", pages_fetched: 3, observations_created: 5 });
    // The filters Google documents per kind of type.
    expect(mock.filters.some((f) => /^heart_rate\.sample_time\.physical_time >= "[^"]+Z" AND heart_rate\.sample_time\.physical_time < "[^"]+Z"$/.test(f))).toBe(true);
    expect(mock.filters.some((f) => /^daily_resting_heart_rate\.date >= "\d{4}-\d{2}-\d{2}" AND daily_resting_heart_rate\.date < "\d{4}-\d{2}-\d{2}"$/.test(f))).toBe(true);
    expect(mock.filters.some((f) => f.startsWith("sleep.interval.end_time >= "))).toBe(true);

    const obs = await observations(a, patientId);
    const value = (code: string) => withCode(obs, code).map((o) => [o.valueQuantity?.value, o.valueQuantity?.code]);
    expect(value("8867-4").sort()).toEqual([60, 61, 62, 63, 64].map((v) => [v, "/min"]));
    expect(value("40443-4")).toEqual([[58, "/min"]]);
    expect(value("29463-7")).toEqual([[81.25, "kg"]]); // weightGrams → kg
    expect(value("55423-8").sort()).toEqual([[812, "{steps}"], [95, "{steps}"]].sort());
    expect(value("2708-6").map(([v]) => v).sort()).toEqual([95.2, 96.5]);
    expect(value("9279-1")).toEqual([[14.6, "/min"]]);
    expect(value("80404-7")).toEqual([[52.7, "ms"]]); // SDNN only from standardDeviationMilliseconds
    expect(value("93832-4")).toEqual([[390, "min"]]); // minutesAsleep
    expect(value("93831-6")).toEqual([[75, "min"]]);
    expect(value("93830-8")).toEqual([[220, "min"]]);
    expect(value("93829-0")).toEqual([[95, "min"]]);
    expect(obs.every((o) => o.valueQuantity?.system === undefined || o.valueQuantity.system === "http://unitsofmeasure.org")).toBe(true);
  });

  it("the vitals endpoint and the patient timeline show them", async () => {
    const res = await a.fetch(`/api/v1/patients/${patientId}/vitals?metric=heart_rate&days=7`);
    expect(res.status, await res.clone().text()).toBe(200);
    const vitals = (await res.json()) as { unit: string; data_points: { value: number; device: { id: string } }[] };
    expect(vitals.data_points.map((p) => p.value).sort()).toEqual([60, 61, 62, 63, 64]);
    expect(vitals.data_points.every((p) => p.device.id === deviceId)).toBe(true);
    const spo2 = (await (await a.fetch(`/api/v1/patients/${patientId}/vitals?metric=spo2&days=7`)).json()) as { unit: string; data_points: { value: number }[] };
    expect(spo2.data_points.map((p) => p.value).sort()).toEqual([95.2, 96.5]);
    const timeline = (await (await a.fetch(`/api/v1/patients/${patientId}/timeline`)).json()) as { events: { type: string }[] };
    expect(timeline.events.map((e) => e.type)).toContain("Device reading");
  });

  it("a second sync of the same week adds nothing; a 429 waits for Retry-After and the sync log says so", async () => {
    const before = (await observations(a, patientId)).length;
    mock.throttleNext(1, { "retry-after": "1" });
    const res = await a.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: { data_types: ["heart-rate", "sleep"], days: 7 } });
    const log = await syncLog(a, ((await res.json()) as { sync_id: string }).sync_id);
    expect(log.state, JSON.stringify(log)).toBe("completed");
    expect(log.data_types.find((d) => d.data_type === "heart-rate")).toMatchObject({ rate_limited: 1, observations_created: 0, duplicates_skipped: 5 });
    expect((await observations(a, patientId)).length).toBe(before);
  });

  it("an access token Google expired is refreshed once on the 401; Google's refresh token does not rotate and is kept", async () => {
    const before = (await getLink(a.ctx, deviceId))!;
    mock.expireAccessTokens();
    const refreshes = mock.refreshCalls;
    const res = await a.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: { data_types: ["weight"], days: 7 } });
    const log = await syncLog(a, ((await res.json()) as { sync_id: string }).sync_id);
    expect(log.state, JSON.stringify(log)).toBe("completed");
    expect(mock.refreshCalls).toBe(refreshes + 1);
    const after = (await getLink(a.ctx, deviceId))!;
    expect(after.tokens.accessToken).not.toBe(before.tokens.accessToken);
    expect(after.tokens.refreshToken).toBe(before.tokens.refreshToken);
  });

  it("an unknown data type is a 400 in the documented shape", async () => {
    const res = await a.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: { data_types: ["nutrition-log"] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBeTypeOf("string");
  });
});

describe("Google Health: resolutions and more data types", () => {
  const rollUser = { id: "rollup-user-5" };
  // Two whole 5-minute windows two days back (aligned to the epoch, as the sync floors them).
  const w0 = Math.floor((Date.now() - 2 * 86_400_000) / 900_000) * 900_000;
  const at = (seconds: number) => new Date(w0 + seconds * 1000).toISOString();
  let ids: { patientId: string; deviceId: string };
  const sync = async (json: Record<string, unknown>) => {
    const res = await a.fetch(`/api/v1/devices/${ids.deviceId}/sync`, { method: "POST", json });
    expect(res.status, await res.clone().text()).toBe(202);
    return syncLog(a, ((await res.json()) as { sync_id: string }).sync_id);
  };

  beforeAll(async () => {
    ids = await newPatientDevice(a);
    expect((await linkDevice(a, KIND, mock, rollUser, ids)).response.status).toBe(200);
    mock.add(rollUser, "heart-rate", P.heartRate(at(0), 60), P.heartRate(at(60), 70), P.heartRate(at(120), 80), P.heartRate(at(330), 90), P.heartRate(at(390), 100));
    mock.add(rollUser, "steps", P.steps(at(0), 100), P.steps(at(300), 40), P.steps(at(600), 2));
    mock.add(rollUser, "floors", P.floors(at(0), 2), P.floors(at(420), 1));
    mock.add(rollUser, "body-fat", P.bodyFat(at(30), 22.5));
    mock.add(rollUser, "core-body-temperature", P.coreBodyTemperature(at(30), 37.1));
    mock.add(rollUser, "altitude", P.altitude(at(0), 9000));
    mock.add(rollUser, "exercise", P.exercise(rollUser, "2026443605080188808", at(0), 45, { caloriesKcal: 455.5, averageHeartRateBeatsPerMinute: "151", distanceMillimeters: 7_250_000, steps: "6912" }));
  });

  it("a sync at 5 min (heart rate) and 15 min (steps) stores one Observation per window, over the window, with Google's aggregates", async () => {
    const rollUpsBefore = mock.rollUps.length;
    const log = await sync({ data_types: ["heart-rate", "steps"], resolution: { "heart-rate": "5m", steps: "15m" } });
    expect(log.state, JSON.stringify(log)).toBe("completed");
    expect(log.data_types.find((d) => d.data_type === "heart-rate")).toMatchObject({ observations_created: 2 });
    const asked = mock.rollUps.slice(rollUpsBefore);
    expect(asked.map((r) => [r.type, r.body.windowSize])).toEqual([["heart-rate", "300s"], ["steps", "900s"]]);
    const obs = await observations(a, ids.patientId);
    const hr = withCode(obs, "8867-4").sort((x, y) => Date.parse(x.effectivePeriod?.start ?? "") - Date.parse(y.effectivePeriod?.start ?? ""));
    expect(hr.map((o) => [o.effectivePeriod?.start, o.effectivePeriod?.end])).toEqual([
      [at(0), at(300)],
      [at(300), at(600)],
    ]);
    expect(hr.map((o) => [o.valueQuantity?.value, o.valueQuantity?.code])).toEqual([
      [70, "/min"],
      [95, "/min"],
    ]);
    expect(hr[0]?.component?.map((c) => [c.code.coding[0]?.code, c.valueQuantity.value])).toEqual([
      ["minimum", 60],
      ["maximum", 80],
    ]);
    const steps = withCode(obs, "55423-8");
    expect(steps.map((o) => [o.valueQuantity?.value, o.effectivePeriod?.start, o.effectivePeriod?.end])).toEqual([[142, at(0), at(900)]]);
  });

  it("the vitals endpoint shows the windows' means; a re-sync of the same windows adds nothing", async () => {
    const vitals = (await (await a.fetch(`/api/v1/patients/${ids.patientId}/vitals?metric=heart_rate&days=7`)).json()) as { data_points: { value: number }[] };
    expect(vitals.data_points.map((p) => p.value).sort()).toEqual([70, 95]);
    const before = (await observations(a, ids.patientId)).length;
    const log = await sync({ data_types: ["heart-rate"], resolution: { "heart-rate": "5m" } });
    expect(log.data_types[0]).toMatchObject({ observations_created: 0, duplicates_skipped: 2 });
    expect((await observations(a, ids.patientId)).length).toBe(before);
  });

  it("a resolution Google does not offer for a type is a 400 naming what it offers", async () => {
    const bad = async (resolution: Record<string, string>) => {
      const res = await a.fetch(`/api/v1/devices/${ids.deviceId}/sync`, { method: "POST", json: { resolution } });
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { code: string; details?: { path: string; message: string }[] } }).error;
    };
    expect(JSON.stringify(await bad({ sleep: "5m" }))).toContain("cannot roll sleep up: only raw");
    expect(JSON.stringify(await bad({ "heart-rate": "2m" }))).toContain("offers raw, 1m, 5m, 15m for heart-rate");
    expect(JSON.stringify(await bad({ "no-such-type": "5m" }))).toContain("not a data type of this platform");
    const c = await createTenant();
    const res = await c.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: KIND, name: "Google Health", credentials: { client_id: CLIENT, client_secret: SECRET }, settings: { "resolution.sleep": "1m" } } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("settings.resolution.sleep");
  });

  it("the organization's default resolution (`resolution.<type>` setting) applies when the sync names none", async () => {
    const put = await a.fetch(`/api/v1/device-integrations/${aIntegration}`, { method: "PUT", json: { platform: KIND, name: "Google Health", settings: { ...settings, "resolution.floors": "15m" } } });
    expect(put.status, await put.clone().text()).toBe(200);
    const rollUpsBefore = mock.rollUps.length;
    const log = await sync({ data_types: ["floors"] });
    expect(log.state, JSON.stringify(log)).toBe("completed");
    expect(mock.rollUps.slice(rollUpsBefore).map((r) => [r.type, r.body.windowSize])).toEqual([["floors", "900s"]]);
    expect(withCode(await observations(a, ids.patientId), "floors-climbed").map((o) => [o.valueQuantity?.value, o.valueQuantity?.code])).toEqual([[3, "{floors}"]]);
    // Raw, asked for explicitly, overrides the default.
    const raw = await sync({ data_types: ["floors"], resolution: { floors: "raw" } });
    expect(raw.data_types[0]).toMatchObject({ observations_created: 2 });
  });

  it("body fat, core temperature, altitude and an exercise session arrive raw with their LOINC/UCUM", async () => {
    const log = await sync({ data_types: ["body-fat", "core-body-temperature", "altitude", "exercise"] });
    expect(log.state, JSON.stringify(log)).toBe("completed");
    expect(mock.filters.some((f) => /^exercise\.interval\.civil_start_time >= "\d{4}-\d{2}-\d{2}" AND exercise\.interval\.civil_start_time < "\d{4}-\d{2}-\d{2}"$/.test(f))).toBe(true);
    const obs = await observations(a, ids.patientId);
    const value = (code: string) => withCode(obs, code).map((o) => [o.valueQuantity?.value, o.valueQuantity?.code]);
    expect(value("41982-0")).toEqual([[22.5, "%"]]);
    expect(value("8310-5")).toEqual([[37.1, "Cel"]]);
    expect(value("elevation-gain").sort()).toEqual([[9, "m"]]);
    expect(value("41981-2")).toEqual([[455.5, "kcal"]]);
    expect(value("55411-3")).toEqual([[45, "min"]]);
    expect(value("distance")).toEqual([[7250, "m"]]);
  });
});

describe("Google Health: subscriber webhook", () => {
  const verification = JSON.stringify({ type: "verification" });

  it("answers the verification pair: 201 with the configured Authorization, 401 without or with another", async () => {
    const ok = await postWebhook(KIND, a.orgId, verification, googleWebhookHeaders(AUTHORIZATION));
    expect(ok.status).toBe(201);
    expect((await postWebhook(KIND, a.orgId, verification, googleWebhookHeaders())).status).toBe(401);
    expect((await postWebhook(KIND, a.orgId, verification, googleWebhookHeaders("Bearer not-it"))).status).toBe(401);
    expect((await webhookEvents(a)).length).toBe(0);
  });

  it("a notification naming the linked user syncs the last hours of its type; a replay adds nothing", async () => {
    mock.add(user, "steps", P.steps(minutesAgo(30), 1234));
    const before = withCode(await observations(a, patientId), "55423-8").length;
    // Google does not document the body: whatever its field names, it names the user and the type.
    const body = JSON.stringify({ data: { user: `users/${user.id}`, type: "steps" } });
    const res = await postWebhook(KIND, a.orgId, body, googleWebhookHeaders(AUTHORIZATION));
    expect(res.status, await res.clone().text()).toBe(200);
    const event = await settled(a, ((await res.json()) as { event_id: string }).event_id);
    expect(event).toMatchObject({ status: "processed", readings: 1 });
    const steps = withCode(await observations(a, patientId), "55423-8");
    expect(steps.length).toBe(before + 1);
    expect(steps.map((o) => o.valueQuantity?.value)).toContain(1234);
    await replay(a, KIND, body, googleWebhookHeaders(AUTHORIZATION));
    expect(withCode(await observations(a, patientId), "55423-8").length).toBe(before + 1);
  });

  it("a notification's sync meets the points the manual sync stored: the same ids on both paths, nothing doubled", async () => {
    const before = withCode(await observations(a, patientId), "8867-4").length;
    expect(before).toBe(5);
    const body = JSON.stringify({ data: { user: `users/${user.id}`, type: "heart-rate" } });
    const res = await postWebhook(KIND, a.orgId, body, googleWebhookHeaders(AUTHORIZATION));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await settled(a, ((await res.json()) as { event_id: string }).event_id)).toMatchObject({ status: "processed", readings: 5, rejected: 0 });
    expect(withCode(await observations(a, patientId), "8867-4").length).toBe(before);
  });

  it("a wrong or missing Authorization is 401 and stores nothing; a body naming no event is ignored, and recorded with that reason", async () => {
    mock.add(user, "weight", P.weight(minutesAgo(20), 80_000));
    const body = JSON.stringify({ user: user.id, dataType: "weight" });
    const before = (await observations(a, patientId)).length;
    const events = (await webhookEvents(a)).length;
    for (const h of [googleWebhookHeaders("Bearer wrong"), googleWebhookHeaders(), googleWebhookHeaders(AUTHORIZATION.toLowerCase())]) {
      const res = await postWebhook(KIND, a.orgId, body, h);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SIGNATURE_INVALID");
    }
    expect((await webhookEvents(a)).length).toBe(events);
    expect((await observations(a, patientId)).length).toBe(before);
    const nobody = JSON.stringify({ ping: true });
    const ignored = await postWebhook(KIND, a.orgId, nobody, googleWebhookHeaders(AUTHORIZATION));
    const ack = (await ignored.json()) as { status: string; event_id: string };
    expect(ack.status).toBe("ignored");
    expect(await settled(a, ack.event_id)).toMatchObject({ status: "no_readings", readings: 0, error: "the body names no Google Health API event the adapter reads (fields ping)" });
    expect((await postWebhook(KIND, a.orgId, "not json", googleWebhookHeaders(AUTHORIZATION))).status).toBe(400);
  });

  it("with a public key configured, X-HEALTHAPI-SIGNATURE must verify (ECDSA P-256) as well", async () => {
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
    const c = await createTenant();
    await integrate(c, { webhook_authorization: AUTHORIZATION }, { webhook_public_key: JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }) });
    const body = JSON.stringify({ user: "someone-not-linked", dataType: "steps" });
    const sign = async (text: string) => btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, new TextEncoder().encode(text)))));
    const good = await postWebhook(KIND, c.orgId, body, googleWebhookHeaders(AUTHORIZATION, { "x-healthapi-signature": await sign(body) }));
    expect(good.status, await good.clone().text()).toBe(200);
    expect((await postWebhook(KIND, c.orgId, body, googleWebhookHeaders(AUTHORIZATION, { "x-healthapi-signature": await sign(`${body} `) }))).status).toBe(401);
    expect((await postWebhook(KIND, c.orgId, body, googleWebhookHeaders(AUTHORIZATION))).status).toBe(401);
    // The verification pair is answered on the Authorization alone.
    expect((await postWebhook(KIND, c.orgId, verification, googleWebhookHeaders(AUTHORIZATION))).status).toBe(201);
  });
});

describe("Google Health: tenancy, retirement and unlink", () => {
  it("org B never sees A's data: no platform → 401 (as a bad signature), another secret → 401, same secret but no link → nothing stored", async () => {
    const body = JSON.stringify({ user: user.id, dataType: "steps" });
    expect((await postWebhook(KIND, b.orgId, body, googleWebhookHeaders(AUTHORIZATION))).status).toBe(401);
    await integrate(b, { webhook_authorization: "Bearer b-only" });
    expect((await postWebhook(KIND, b.orgId, body, googleWebhookHeaders(AUTHORIZATION))).status).toBe(401);
    const res = await postWebhook(KIND, b.orgId, body, googleWebhookHeaders("Bearer b-only"));
    expect(res.status).toBe(200);
    const bEvent = ((await res.json()) as { event_id: string }).event_id;
    expect(await settled(b, bEvent)).toMatchObject({ status: "no_readings", readings: 0, error: `no device is linked to Google Health API user ${user.id}` });
    expect((await webhookEvents(a)).some((e) => e.id === bEvent)).toBe(false);
    expect((await b.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: {} })).status).toBe(404);
    expect((await b.fetch(`/api/v1/patients/${patientId}/vitals?metric=heart_rate`)).status).toBe(404);
    expect((await b.fetch(`/api/v1/device-platforms/links/${deviceId}`, { method: "DELETE" })).status).toBe(404);
  });

  it("unlinking revokes the grant at Google and forgets the tokens", async () => {
    const revokedBefore = mock.revoked.length;
    const res = await a.fetch(`/api/v1/device-platforms/links/${deviceId}`, { method: "DELETE" });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(mock.revoked.length).toBe(revokedBefore + 1);
    expect((await a.fetch(`/api/v1/device-platforms/links/${deviceId}`, { method: "DELETE" })).status).toBe(404);
  });
  it("a 410 Gone (a retired endpoint) fails the sync and ends the link as \"platform retired\"", async () => {
    const other = { id: "retired-user-77" };
    const ids = await newPatientDevice(a);
    expect((await linkDevice(a, KIND, mock, other, ids)).response.status).toBe(200);
    mock.gone.add("distance");
    const res = await a.fetch(`/api/v1/devices/${ids.deviceId}/sync`, { method: "POST", json: { data_types: ["distance"] } });
    const log = await syncLog(a, ((await res.json()) as { sync_id: string }).sync_id);
    mock.gone.delete("distance");
    expect(log.state).toBe("failed");
    expect(log.data_types[0]?.errors[0]?.reason).toMatch(/^revoked: platform retired: .*HTTP 410/);
    const links = (await (await a.fetch("/api/v1/device-platforms/links")).json()) as { links: { device_id: string; status: string; status_reason: string | null }[] };
    expect(links.links.find((l) => l.device_id === ids.deviceId)).toMatchObject({ status: "inactive", status_reason: expect.stringContaining("platform retired") });
  });
});
