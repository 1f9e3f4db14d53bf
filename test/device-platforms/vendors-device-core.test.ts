// WHOOP, Garmin, Polar, Suunto and Oura end to end on the device core as the Worker wires it
// (src/features/devices/platform-services.ts): per platform, link through the vendor's OAuth with the
// org's integration → webhooks signed exactly as the vendor signs them → Observations with the
// metric table's LOINC (or local) codes and UCUM units, every one of them stored (none refused)
// → the vitals endpoint and the patient timeline show them → a replayed webhook adds nothing →
// a webhook signed with another secret stores nothing → a manual sync, with its progress in the
// sync log → another organization sees none of it. Then what each platform adds: WHOOP deletes
// retract their own record only, readings the device core refuses are counted on the event and
// the sync log with the reason, and two patients' records of the same instant stay two.
// Only the vendors' clouds are mocks; the records are the reference's samples, moved to
// yesterday so the vitals window holds them.
import { beforeAll, describe, expect, it } from "vitest";
import created from "../fixtures/wearables/suunto-workout-created.json";
import dailies from "../fixtures/wearables/garmin-dailies.json";
import polarExercise from "../fixtures/wearables/polar-exercise.json";
import ouraSleep from "../fixtures/wearables/oura-sleep.json";
import { env } from "cloudflare:workers";
import { contextForOrg } from "../../src/main/context";
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { processDeviceEventBatch } from "../../src/features/devices/platforms/webhooks/queue";
import type { DeviceEventMessage } from "../../src/features/devices/platforms/webhooks/receive";
import { DEVICE_METRICS_SYSTEM, LOINC, UCUM } from "../../src/features/devices/metrics/codes";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { useDevicePlatformServices } from "../support/service-profile";
import { createTenant, type Tenant } from "../support/tenants";
import { integrate, newPatientDevice, type Obs, observations, type SyncLogView, syncAndWait, timelineReadings, vitalValues, withCode } from "./device-core";
import { GARMIN_ORIGIN, garminMock, garminPushHeaders } from "./mocks/garmin";
import { OURA_ORIGIN, ouraMock, ouraSignedHeaders } from "./mocks/oura";
import { POLAR_ORIGIN, polarMock, polarSignedHeaders } from "./mocks/polar";
import { SUBSCRIPTION_KEY, SUUNTO_ORIGIN, suuntoMock, suuntoSignedHeaders } from "./mocks/suunto";
import { type MockUser, mockNetwork, type VendorMock } from "./mocks/vendor-mock";
import { WHOOP_ORIGIN, whoopMock, whoopSignedHeaders, whoopSleep } from "./mocks/whoop";
import { deliver, type EventView, linkDevice, postWebhook, replay, webhookEvents } from "./support";

const DAY = 86_400_000;
/** Yesterday 00:00 UTC, and instants after it. */
const Y = Math.floor(Date.now() / DAY) * DAY - DAY;
const at = (hours: number) => new Date(Y + hours * 3_600_000).toISOString();
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

// ---- the vendors' records

const WHOOP_SLEEP = "5c3e1d2a-7b4f-4e6a-9d1c-2f8b6a4e0c11";
const WHOOP_OLDER_SLEEP = "0b9f6d0e-3a51-4c47-8f0a-6f2d9e1c4b22";
const WHOOP_WORKOUT = "9d2b7c1e-64a3-4f0e-b8d5-1e7a3c9f5b33";
const whoop = whoopMock("whoop-e2e-client", "whoop-e2e-secret");
whoop.docs.sleep.set(WHOOP_SLEEP, { ...whoopSleep, id: WHOOP_SLEEP, cycle_id: 184001, user_id: 20451, start: at(2), end: at(10), created_at: at(10.5), updated_at: at(10.5) });
whoop.docs.sleep.set(WHOOP_OLDER_SLEEP, { ...whoopSleep, id: WHOOP_OLDER_SLEEP, cycle_id: 183999, user_id: 20451, start: at(-22), end: at(-14), created_at: at(-13.5), updated_at: at(-13.5) });
whoop.docs.recovery.set("184001", {
  cycle_id: 184001,
  sleep_id: WHOOP_SLEEP,
  user_id: 20451,
  created_at: at(10.5),
  updated_at: at(10.5),
  score_state: "SCORED",
  score: { user_calibrating: false, recovery_score: 61, resting_heart_rate: 52, hrv_rmssd_milli: 48.2, spo2_percentage: 96.4, skin_temp_celsius: 33.9 },
});
whoop.docs.workout.set(WHOOP_WORKOUT, {
  id: WHOOP_WORKOUT,
  user_id: 20451,
  created_at: at(18),
  updated_at: at(18),
  start: at(17),
  end: at(17.75),
  timezone_offset: "-05:00",
  sport_name: "running",
  score_state: "SCORED",
  score: { strain: 11.3, average_heart_rate: 138, max_heart_rate: 171, kilojoule: 2100, percent_recorded: 100, distance_meter: 8000, altitude_gain_meter: 46, altitude_change_meter: 0.5 },
});
const whoopEvent = (type: string, id: string) => JSON.stringify({ user_id: 20451, id, type, trace_id: crypto.randomUUID() });

const garmin = garminMock("garmin-e2e-client", "garmin-e2e-secret");
const GARMIN_USER = "5e1c0ffee0ddba11d00dfeed12345678";
const garminPush = JSON.stringify({
  dailies: [{ ...dailies.dailies[0], userId: GARMIN_USER, summaryId: "e2e-daily-1", calendarDate: dateOf(Y), startTimeInSeconds: Y / 1000, startTimeOffsetInSeconds: 0 }],
  hrv: [{ userId: GARMIN_USER, summaryId: "e2e-hrv-1", calendarDate: dateOf(Y), startTimeInSeconds: Y / 1000 - 7200, durationInSeconds: 28800, lastNightAvg: 44 }],
});

const polar = polarMock("polar-e2e-client", "polar-e2e-secret");
const POLAR_SECRET = "polar-e2e-signature";
const NIGHT = dateOf(Y);
polar.exercises.set("E2EX1", { ...polarExercise, id: "E2EX1", start_time: `${NIGHT}T08:00:00`, start_time_utc_offset: 60, duration: "PT45M", calories: 540, distance: 7500, heart_rate: { average: 142, maximum: 171 } });
polar.nights.set(NIGHT, {
  polar_user: "https://www.polaraccesslink.com/v3/users/58213",
  date: NIGHT,
  sleep_start_time: `${dateOf(Y - DAY)}T23:10:00+01:00`,
  sleep_end_time: `${NIGHT}T06:40:00+01:00`,
  device_id: "1111AAAA",
  continuity: 3.1,
  light_sleep: 14400,
  deep_sleep: 5400,
  rem_sleep: 4800,
  unrecognized_sleep_stage: 0,
  sleep_score: 82,
  total_interruption_duration: 1200,
});
const polarEvent = (event: "EXERCISE" | "SLEEP", user = 58213) =>
  JSON.stringify(
    event === "EXERCISE"
      ? { event, user_id: user, entity_id: "E2EX1", timestamp: at(9), url: `${POLAR_ORIGIN}/v3/exercises/E2EX1` }
      : { event, user_id: user, date: NIGHT, timestamp: at(7), url: `${POLAR_ORIGIN}/v3/users/sleep/${NIGHT}` },
  );

const suunto = suuntoMock("suunto-e2e-client", "suunto-e2e-secret");
const SUUNTO_SECRET = "suunto-e2e-notify";
const suuntoWorkout = { ...created.workout, workoutKey: "e2e0000000000000000000a1", startTime: Y + 7 * 3_600_000, totalTime: 5400, energyConsumption: 620, stepCount: 9100, totalDistance: 12000, hrdata: { workoutAvgHR: 131, workoutMaxHR: 166 }, timeOffsetInMinutes: 60 };
suunto.workouts.push(suuntoWorkout, { ...suuntoWorkout, workoutKey: "e2e0000000000000000000a0", startTime: Y - DAY + 7 * 3_600_000, stepCount: 4000 });

const oura = ouraMock("oura-e2e-client", "oura-e2e-secret");
const OURA_SLEEP = { ...ouraSleep.data[0]!, id: "e2e-sleep-1", day: NIGHT, bedtime_start: `${dateOf(Y - DAY)}T23:00:00+00:00`, bedtime_end: `${NIGHT}T07:00:00+00:00` };
const series = (doc: { timestamp: string }) => ({ ...doc, timestamp: `${dateOf(Y - DAY)}T23:00:00+00:00` });
oura.docs.set("sleep", [{ ...OURA_SLEEP, heart_rate: series(OURA_SLEEP.heart_rate), hrv: series(OURA_SLEEP.hrv) }]);
oura.docs.set("daily_activity", [{ id: "e2e-act-1", day: NIGHT, score: 82, steps: 9120, active_calories: 410, timestamp: `${NIGHT}T04:00:00+00:00` }]);
oura.docs.set("daily_readiness", [{ id: "e2e-ready-1", day: NIGHT, score: 76, temperature_deviation: -0.21, temperature_trend_deviation: 0.05, timestamp: `${NIGHT}T04:00:00+00:00` }]);
oura.docs.set("daily_spo2", [{ id: "e2e-spo2-1", day: NIGHT, spo2_percentage: { average: 97.1 } }]);
oura.docs.set("heartrate", [
  { bpm: 61, source: "awake", timestamp: at(12) },
  { bpm: 66, source: "awake", timestamp: at(12.1) },
]);
const ouraEvent = (dataType: string, objectId: string, eventType = "create") => JSON.stringify({ event_type: eventType, data_type: dataType, object_id: objectId, user_id: "oura-e2e-user", event_time: new Date().toISOString() });

// ---- the platforms, as data

/** One Observation as the test expects it: its primary code, value and UCUM unit. */
type Expected = readonly [code: string, value: number, ucum: string];

interface VendorCase {
  readonly vendor: string;
  readonly kind: string;
  readonly mock: VendorMock;
  readonly credentials: Record<string, string>;
  readonly settings: Record<string, string>;
  readonly user: MockUser;
  /** The bodies the vendor sends, in order, each signed by `sign`. */
  readonly deliveries: readonly string[];
  readonly sign: (body: string) => Record<string, string>;
  /** The vendor's signing with another secret (Garmin: another client). */
  readonly forge: (body: string) => Record<string, string>;
  /** Every Observation the deliveries make. */
  readonly expected: readonly Expected[];
  /** Vitals metric → its samples' values (the vitals endpoint's units). */
  readonly vitals: Readonly<Record<string, readonly number[]>>;
  /** Vitals metric → statistic → the vendor's aggregates (the vitals endpoint's `aggregates`); none where not listed. */
  readonly aggregates: Readonly<Record<string, Readonly<Record<string, readonly number[]>>>>;
  /** A manual sync over the records' days, and what its log says. */
  readonly sync: { readonly body: Record<string, unknown>; readonly check: (log: SyncLogView) => void };
}

const around = { from_date: dateOf(Y - 2 * DAY), to_date: dateOf(Y + 2 * DAY) };
const byType = (log: SyncLogView, type: string) => log.data_types.find((d) => d.data_type === type);

const CASES: readonly VendorCase[] = [
  {
    vendor: "WHOOP",
    kind: "recovery_strap",
    mock: whoop,
    credentials: { client_id: "whoop-e2e-client", client_secret: "whoop-e2e-secret" },
    settings: { authorize_url: `${WHOOP_ORIGIN}/oauth/oauth2/auth`, token_url: `${WHOOP_ORIGIN}/oauth/oauth2/token`, api_base_url: `${WHOOP_ORIGIN}/developer` },
    user: { id: "20451" },
    deliveries: [whoopEvent("sleep.updated", WHOOP_SLEEP), whoopEvent("recovery.updated", WHOOP_SLEEP), whoopEvent("workout.updated", WHOOP_WORKOUT)],
    sign: (body) => whoopSignedHeaders("whoop-e2e-secret", body),
    forge: (body) => whoopSignedHeaders("not-whoops-secret", body),
    expected: [
      // sleep: the asleep stages' sum (ms → min), performance, efficiency, respiration
      ["93832-4", 456.9299, "min"],
      ["sleep-performance", 98, "%"],
      ["sleep-efficiency", 91.6953, "%"],
      ["9279-1", 16.1133, "/min"],
      // recovery: WHOOP's percentage is the score itself, not 0.61 of one
      ["recovery-score", 61, "{score}"],
      ["40443-4", 52, "/min"],
      ["hrv-rmssd", 48.2, "ms"],
      ["2708-6", 96.4, "%"],
      ["61008-9", 33.9, "Cel"],
      // workout: strain, kJ → kcal, average heart rate, distance
      ["strain", 11.3, "{score}"],
      ["41981-2", 501.912, "kcal"],
      ["8867-4", 138, "/min"],
      ["distance", 8000, "m"],
    ],
    // The workout's average heart rate is an aggregate: no heart-rate sample, the average beside them.
    vitals: { heart_rate: [], hrv: [48.2], spo2: [96.4], respiratory_rate: [16.1133], sleep: [456.9299], sleep_efficiency: [91.6953], calories: [501.912], distance: [8000] },
    aggregates: { heart_rate: { average: [138] } },
    sync: {
      body: { data_types: ["sleep", "recovery", "workout"], ...around },
      check(log) {
        // The older night is new; what the webhooks brought is met as duplicates.
        expect(byType(log, "sleep")).toMatchObject({ state: "completed", pages_fetched: 1, observations_created: 4, duplicates_skipped: 4, readings_rejected: 0 });
        expect(byType(log, "recovery")).toMatchObject({ state: "completed", observations_created: 0, duplicates_skipped: 5, readings_rejected: 0 });
        expect(byType(log, "workout")).toMatchObject({ state: "completed", observations_created: 0, duplicates_skipped: 4, readings_rejected: 0 });
      },
    },
  },
  {
    vendor: "Garmin",
    kind: "sports_watch",
    mock: garmin,
    credentials: { client_id: "garmin-e2e-client", client_secret: "garmin-e2e-secret" },
    settings: { authorize_url: `${GARMIN_ORIGIN}/oauth2Confirm`, token_url: `${GARMIN_ORIGIN}/di-oauth2-service/oauth/token`, api_base_url: GARMIN_ORIGIN },
    user: { id: GARMIN_USER },
    deliveries: [garminPush],
    sign: () => garminPushHeaders("garmin-e2e-client"),
    forge: () => garminPushHeaders("another-garmin-client"),
    expected: [
      ["55423-8", 8421, "{steps}"],
      ["distance", 6234.5, "m"],
      ["41981-2", 412, "kcal"],
      ["55411-3", 31, "min"],
      ["40443-4", 52, "/min"],
      ["8867-4", 64, "/min"],
      ["2708-6", 96, "%"],
      ["stress", 32, "{score}"],
      ["body-battery", 92, "{score}"],
      ["body-battery", 21, "{score}"],
      ["8867-4", 58, "/min"],
      ["8867-4", 57, "/min"],
      ["8867-4", 59, "/min"],
      ["hrv-rmssd", 44, "ms"],
    ],
    // The day's average heart rate (64) starts at 00:00, where the first sample (58) is: both stay, the
    // average as an aggregate beside the samples (docs/devices.md); so do the day's highest (92) and
    // lowest (21) body battery, which share 00:00 too.
    vitals: { heart_rate: [57, 58, 59], steps: [8421], stress: [], body_battery: [], hrv: [], active_minutes: [31] },
    aggregates: { heart_rate: { average: [64] }, stress: { average: [32] }, body_battery: { maximum: [92], minimum: [21] }, hrv: { average: [44] }, spo2: { average: [96] } },
    sync: {
      // Garmin has no pull: the sync asks for a backfill per type, which Garmin pushes later.
      body: { data_types: ["dailies", "hrv"], ...around },
      check(log) {
        for (const type of ["dailies", "hrv"]) {
          expect(byType(log, type)).toMatchObject({ state: "completed", observations_created: 0, readings_rejected: 0 });
          expect(byType(log, type)?.errors[0]?.reason).toMatch(/^backfill requested \(HTTP 202\)/);
        }
      },
    },
  },
  {
    vendor: "Polar",
    kind: "training_platform",
    mock: polar,
    credentials: { client_id: "polar-e2e-client", client_secret: "polar-e2e-secret", webhook_signature_secret: POLAR_SECRET },
    settings: { authorize_url: `${POLAR_ORIGIN}/oauth2/authorization`, token_url: `${POLAR_ORIGIN}/v2/oauth2/token`, api_base_url: POLAR_ORIGIN },
    user: { id: "58213" },
    deliveries: [polarEvent("EXERCISE"), polarEvent("SLEEP")],
    sign: (body) => polarSignedHeaders(POLAR_SECRET, body, JSON.parse(body).event),
    forge: (body) => polarSignedHeaders("another-signature-key", body, JSON.parse(body).event),
    expected: [
      ["41981-2", 540, "kcal"],
      ["distance", 7500, "m"],
      ["8867-4", 142, "/min"],
      ["55411-3", 45, "min"],
      ["93832-4", 410, "min"],
      ["sleep-score", 82, "{score}"],
    ],
    vitals: { heart_rate: [], calories: [540], active_minutes: [45], sleep: [410], distance: [7500] },
    aggregates: { heart_rate: { average: [142] } },
    sync: {
      body: { data_types: ["exercise", "sleep"], ...around },
      check(log) {
        // AccessLink lists every exercise it keeps: the reference's January 2024 one is outside the range.
        expect(byType(log, "exercise")).toMatchObject({ state: "completed", pages_fetched: 1, readings_received: 4, observations_created: 0, duplicates_skipped: 4, readings_rejected: 0 });
        expect(byType(log, "sleep")).toMatchObject({ state: "completed", pages_fetched: 1, readings_received: 2, observations_created: 0, duplicates_skipped: 2, readings_rejected: 0 });
      },
    },
  },
  {
    vendor: "Suunto",
    kind: "outdoor_watch",
    mock: suunto,
    credentials: { client_id: "suunto-e2e-client", client_secret: "suunto-e2e-secret", subscription_key: SUBSCRIPTION_KEY, webhook_secret: SUUNTO_SECRET },
    settings: { authorize_url: `${SUUNTO_ORIGIN}/oauth/authorize`, token_url: `${SUUNTO_ORIGIN}/oauth/token`, api_base_url: SUUNTO_ORIGIN },
    user: { id: "e2e_hiker" },
    deliveries: [JSON.stringify({ type: "WORKOUT_CREATED", username: "e2e_hiker", workout: suuntoWorkout, gear: created.gear })],
    sign: (body) => suuntoSignedHeaders(SUUNTO_SECRET, body),
    forge: (body) => suuntoSignedHeaders("another-notification-secret", body),
    expected: [
      ["41981-2", 620, "kcal"],
      ["55423-8", 9100, "{steps}"],
      ["distance", 12000, "m"],
      ["8867-4", 131, "/min"],
      ["55411-3", 90, "min"],
    ],
    vitals: { heart_rate: [], steps: [9100], distance: [12000], active_minutes: [90], calories: [620] },
    aggregates: { heart_rate: { average: [131] } },
    sync: {
      body: { data_types: ["workout"], ...around },
      check(log) {
        // The day-before workout is new; the one the webhook brought is met again.
        expect(byType(log, "workout")).toMatchObject({ state: "completed", pages_fetched: 1, readings_received: 10, observations_created: 5, duplicates_skipped: 5, readings_rejected: 0 });
      },
    },
  },
  {
    vendor: "Oura",
    kind: "smart_ring",
    mock: oura,
    credentials: { client_id: "oura-e2e-client", client_secret: "oura-e2e-secret" },
    settings: { authorize_url: `${OURA_ORIGIN}/oauth/authorize`, token_url: `${OURA_ORIGIN}/oauth/token`, revoke_url: `${OURA_ORIGIN}/oauth/revoke`, api_base_url: OURA_ORIGIN },
    user: { id: "oura-e2e-user" },
    deliveries: [ouraEvent("daily_activity", "e2e-act-1"), ouraEvent("daily_readiness", "e2e-ready-1"), ouraEvent("daily_spo2", "e2e-spo2-1"), ouraEvent("sleep", "e2e-sleep-1")],
    sign: (body) => ouraSignedHeaders("oura-e2e-secret", body),
    forge: (body) => ouraSignedHeaders("not-ouras-secret", body),
    expected: [
      ["activity-score", 82, "{score}"],
      ["55423-8", 9120, "{steps}"],
      ["41981-2", 410, "kcal"],
      ["readiness-score", 76, "{score}"],
      // Oura's temperature_deviation is the skin temperature against the wearer's baseline.
      ["skin-temperature-delta", -0.21, "Cel"],
      ["2708-6", 97.1, "%"],
      ["93832-4", 450, "min"],
      ["sleep-efficiency", 88, "%"],
      ["40443-4", 48, "/min"],
      ["hrv-rmssd", 45, "ms"],
      ["9279-1", 15.5, "/min"],
      ["8867-4", 56, "/min"],
      ["8867-4", 55, "/min"],
      ["8867-4", 54, "/min"],
      ["hrv-rmssd", 41, "ms"],
      ["hrv-rmssd", 45, "ms"],
      ["hrv-rmssd", 47, "ms"],
    ],
    // The night's average HRV (45) and the series' first sample (41) share bedtime: both stay, the average as an aggregate.
    vitals: { steps: [9120], spo2: [97.1], sleep: [450], hrv: [41, 45, 47], heart_rate: [54, 55, 56], respiratory_rate: [15.5] },
    aggregates: { hrv: { average: [45] } },
    sync: {
      // Heart rate is a time series read by range; the daily documents are met again.
      body: { data_types: ["heartrate", "daily_activity"], ...around },
      check(log) {
        expect(byType(log, "heartrate")).toMatchObject({ state: "completed", observations_created: 2, duplicates_skipped: 0, readings_rejected: 0 });
        expect(byType(log, "daily_activity")).toMatchObject({ state: "completed", observations_created: 0, duplicates_skipped: 3, readings_rejected: 0 });
      },
    },
  },
];

const round = (v: number) => Math.round(v * 1e4) / 1e4;
const sortRows = (rows: (readonly [string, number, string])[]) => [...rows].map(([c, v, u]) => [c, round(v), u] as const).sort((x, y) => `${x[0]}|${x[1]}`.localeCompare(`${y[0]}|${y[1]}`));
const rowOf = (o: Obs) => [o.code.coding[0]!.code, o.valueQuantity?.value ?? Number.NaN, o.valueQuantity?.code ?? ""] as const;

let other: Tenant;
/** How many ingests to fail after they stored everything (a shard lost after the commit, a later step failing). */
let failAfterStoring = 0;

beforeAll(async () => {
  const network = mockNetwork(...CASES.map((c) => c.mock));
  useDevicePlatformServices({
    ...devicePlatformServices,
    fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: network }),
    async ingest(...args) {
      const results = await devicePlatformServices.ingest(...args);
      if (failAfterStoring > 0) {
        failAfterStoring -= 1;
        throw new Error("the shard went away after storing");
      }
      return results;
    },
  });
  other = await createTenant();
});

describe.each(CASES)("$vendor on the device core", (c) => {
  let t: Tenant;
  let patientId: string;
  let deviceId: string;
  const delivered: EventView[] = [];

  beforeAll(async () => {
    t = await createTenant();
    await integrate(t, c.kind, c.credentials, c.settings);
    ({ patientId, deviceId } = await newPatientDevice(t, c.kind, `${c.vendor} wearer`));
  });

  it("links through the vendor's OAuth with the organization's integration", async () => {
    const { response } = await linkDevice(t, c.kind, c.mock, c.user, { patientId, deviceId });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ status: "linked", device_id: deviceId, platform_user_id: c.user.id });
    const devices = (await (await t.fetch(`/api/v1/patients/${patientId}/devices`)).json()) as { devices: { device_id: string; status: string }[] };
    expect(devices.devices.find((d) => d.device_id === deviceId)?.status).toBe("active");
  });

  it("signed webhooks become Observations with the metric table's codes and UCUM units, none refused", async () => {
    for (const body of c.deliveries) delivered.push(await deliver(t, c.kind, body, c.sign(body)));
    for (const event of delivered) expect(event, JSON.stringify(event)).toMatchObject({ status: "processed", rejected: 0, rejections: [] });
    expect(delivered.reduce((n, e) => n + e.readings, 0)).toBe(c.expected.length);
    const stored = await observations(t, patientId);
    expect(sortRows(stored.map(rowOf))).toEqual(sortRows([...c.expected]));
    for (const o of stored) {
      expect(o.status).toBe("final");
      expect(o.device?.reference).toBe(`Device/${deviceId}`);
      expect(o.valueQuantity?.system).toBe(UCUM);
      // LOINC where the table has a verified code, else the service's published CodeSystem.
      expect(o.code.coding[0]!.system).toBe(/^\d+-\d$/.test(o.code.coding[0]!.code) ? LOINC : DEVICE_METRICS_SYSTEM);
      expect(o.identifier?.[0]?.value.startsWith(`${c.kind}|`)).toBe(true);
    }
  });

  it("the vitals endpoint and the patient timeline show them", async () => {
    for (const metric of new Set([...Object.keys(c.vitals), ...Object.keys(c.aggregates)])) {
      const vitals = await vitalValues(t, patientId, metric);
      expect(vitals.values.map(round), metric).toEqual([...(c.vitals[metric] ?? [])].sort((x, y) => x - y));
      const aggregates = Object.fromEntries(Object.entries(c.aggregates[metric] ?? {}).map(([s, v]) => [s, [...v].sort((x, y) => x - y)]));
      expect(Object.fromEntries(Object.entries(vitals.aggregates).map(([s, v]) => [s, v.map(round)])), metric).toEqual(aggregates);
      expect(vitals.devices).toEqual([deviceId]);
    }
    const timeline = await timelineReadings(t, patientId);
    const stored = await observations(t, patientId);
    expect(timeline.length).toBe(Math.min(stored.length, 100));
    expect(stored.map((o) => o.id)).toEqual(expect.arrayContaining(timeline));
  });

  it("a replayed webhook adds nothing; one signed with another secret is 401 and stores nothing", async () => {
    const before = (await observations(t, patientId)).length;
    const body = c.deliveries[0]!;
    await replay(t, c.kind, body, c.sign(body));
    expect((await observations(t, patientId)).length).toBe(before);
    const events = (await webhookEvents(t)).length;
    const forged = await postWebhook(c.kind, t.orgId, body, c.forge(body));
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("SIGNATURE_INVALID");
    expect((await webhookEvents(t)).length).toBe(events);
    expect((await observations(t, patientId)).length).toBe(before);
  });

  it("a manual sync shows its progress in the sync log", async () => {
    const log = await syncAndWait(t, deviceId, c.sync.body);
    expect(log.state, JSON.stringify(log)).toBe("completed");
    c.sync.check(log);
    expect((await observations(t, patientId)).every((o) => o.device?.reference === `Device/${deviceId}`)).toBe(true);
  });

  it("another organization sees none of it", async () => {
    const body = c.deliveries[0]!;
    // No integration of that kind there: the delivery is refused as for a bad signature.
    expect((await postWebhook(c.kind, other.orgId, body, c.sign(body))).status).toBe(401);
    expect((await other.fetch(`/api/v1/patients/${patientId}/vitals?metric=heart_rate`)).status).toBe(404);
    expect((await other.fetch(`/api/v1/patients/${patientId}/timeline`)).status).toBe(404);
    expect((await other.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: c.sync.body })).status).toBe(404);
    const theirs = (await (await other.fetch(`/fhir/r4/${other.orgId}/Observation?subject=Patient/${patientId}`)).json()) as { total?: number; entry?: unknown[] };
    expect(theirs.entry ?? []).toEqual([]);
    const ids = new Set(delivered.map((e) => e.id));
    expect((await webhookEvents(other)).some((e) => ids.has(e.id))).toBe(false);
  });
});

/** A vendor's body as it comes for another of its users: every mention of the user's id replaced. */
const forUser = (body: string, from: MockUser, to: MockUser) => body.split(from.id).join(to.id);

type Held = Obs & { meta: { versionId: string }; subject: { reference: string } };
/** What a patient's Observations are: id, version, subject, device, value (what another patient's records must never move). */
const held = async (t: Tenant, patientId: string) =>
  ((await observations(t, patientId)) as Held[]).map((o) => [o.id, o.meta.versionId, o.subject.reference, o.device?.reference, o.valueQuantity?.value]).sort();

describe.each(CASES)("$vendor: two users whose records share ids stay two patients", (c) => {
  // Two links, two users' deliveries and a backfill: a minute's wait on a loaded machine, not a failure.
  it("the second user's webhooks and backfill create its own Observations; the first patient's stay as they were", { timeout: 60_000 }, async () => {
    const t = await createTenant();
    await integrate(t, c.kind, c.credentials, c.settings);
    const second: MockUser = { id: `${c.user.id}9` };
    const [a, b] = [await newPatientDevice(t, c.kind, `${c.vendor} first`), await newPatientDevice(t, c.kind, `${c.vendor} second`)];
    expect((await linkDevice(t, c.kind, c.mock, c.user, a)).response.status).toBe(200);
    expect((await linkDevice(t, c.kind, c.mock, second, b)).response.status).toBe(200);
    for (const body of c.deliveries) expect(await deliver(t, c.kind, body, c.sign(body))).toMatchObject({ status: "processed", rejected: 0 });
    const first = await held(t, a.patientId);
    expect(first.length).toBe(c.expected.length);

    // The vendor's record ids are unique only within its user: the second user's are the same.
    for (const body of c.deliveries.map((d) => forUser(d, c.user, second))) expect(await deliver(t, c.kind, body, c.sign(body))).toMatchObject({ status: "processed", rejected: 0, updated: 0 });
    expect((await syncAndWait(t, b.deviceId, c.sync.body)).data_types.every((d) => d.readings_rejected === 0)).toBe(true);

    expect(await held(t, a.patientId)).toEqual(first);
    const theirs = await observations(t, b.patientId);
    expect(sortRows(theirs.filter((o) => o.status === "final").map(rowOf))).toEqual(expect.arrayContaining(sortRows([...c.expected])));
    expect(theirs.every((o) => o.device?.reference === `Device/${b.deviceId}`)).toBe(true);
  });
});

describe("WHOOP deletes", () => {
  let t: Tenant;
  let ids: { patientId: string; deviceId: string };
  /** Another WHOOP user of the org, whose records have the same ids. */
  let neighbour: { patientId: string; deviceId: string };
  const recordsOf = async (of: typeof ids, recordId: string) => (await observations(t, of.patientId)).filter((o) => o.identifier?.[0]?.value.startsWith(`recovery_strap|${of.deviceId}|${recordId}|`));
  const mine = (recordId: string) => recordsOf(ids, recordId);
  const send = (body: string) => deliver(t, "recovery_strap", body, whoopSignedHeaders("whoop-e2e-secret", body));

  beforeAll(async () => {
    t = await createTenant();
    await integrate(t, "recovery_strap", CASES[0]!.credentials, CASES[0]!.settings);
    ids = await newPatientDevice(t, "recovery_strap", "WHOOP wearer");
    neighbour = await newPatientDevice(t, "recovery_strap", "Another WHOOP wearer");
    expect((await linkDevice(t, "recovery_strap", whoop, { id: "20451" }, ids)).response.status).toBe(200);
    expect((await linkDevice(t, "recovery_strap", whoop, { id: "20452" }, neighbour)).response.status).toBe(200);
    for (const type of ["sleep.updated", "recovery.updated"]) {
      await send(whoopEvent(type, WHOOP_SLEEP));
      await send(forUser(whoopEvent(type, WHOOP_SLEEP), { id: "20451" }, { id: "20452" }));
    }
  });

  it("a v2 recovery.deleted (the sleep's UUID) retracts the recovery only: the sleep's Observations stay, the vitals lose the recovery's", async () => {
    expect((await mine(`recovery-${WHOOP_SLEEP}`)).map((o) => o.status)).toEqual(Array(5).fill("final"));
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([48.2]);
    // Deleted at WHOOP: gone from its API too.
    whoop.docs.recovery.delete("184001");
    expect(await send(whoopEvent("recovery.deleted", WHOOP_SLEEP))).toMatchObject({ status: "processed", readings: 0, deleted: 1 });
    expect((await mine(`recovery-${WHOOP_SLEEP}`)).map((o) => o.status)).toEqual(Array(5).fill("entered-in-error"));
    expect((await mine(WHOOP_SLEEP)).map((o) => o.status)).toEqual(Array(4).fill("final"));
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([]);
    expect((await vitalValues(t, ids.patientId, "sleep")).values).toEqual([456.9299]);
    // The other user's recovery under the same id is theirs: untouched.
    expect((await recordsOf(neighbour, `recovery-${WHOOP_SLEEP}`)).map((o) => o.status)).toEqual(Array(5).fill("final"));
    expect((await vitalValues(t, neighbour.patientId, "hrv")).values).toEqual([48.2]);
  });

  it("the sleep.deleted that comes with it retracts the sleep", async () => {
    whoop.docs.sleep.delete(WHOOP_SLEEP);
    expect(await send(whoopEvent("sleep.deleted", WHOOP_SLEEP))).toMatchObject({ status: "processed", deleted: 1 });
    expect((await mine(WHOOP_SLEEP)).map((o) => o.status)).toEqual(Array(4).fill("entered-in-error"));
    expect((await vitalValues(t, ids.patientId, "sleep")).values).toEqual([]);
  });

  it("a v1 recovery.deleted (an integer cycle id) cannot be traced to a recovery and retracts nothing", async () => {
    await syncAndWait(t, ids.deviceId, { data_types: ["sleep"], ...around });
    const before = (await observations(t, ids.patientId)).filter((o) => o.status === "final").length;
    expect(before).toBeGreaterThan(0);
    expect(await send(whoopEvent("recovery.deleted", "183999"))).toMatchObject({
      status: "no_readings",
      deleted: 0,
      error: expect.stringContaining('gave no readings: the delete names "183999", which is no recovery\'s sleep UUID'),
    });
    expect((await observations(t, ids.patientId)).filter((o) => o.status === "final").length).toBe(before);
  });
});

describe("WHOOP: a record announced before it is scored", () => {
  const SLEEP = "7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a55";
  const pending = { cycle_id: 184002, sleep_id: SLEEP, user_id: 20451, created_at: at(11), updated_at: at(11), score_state: "PENDING_SCORE" };

  it("the absent readings of PENDING_SCORE do not swallow the scored values that follow; a delete retracts both", async () => {
    whoop.docs.sleep.set(SLEEP, { ...whoopSleep, id: SLEEP, cycle_id: 184002, user_id: 20451, start: at(3), end: at(10.9), created_at: at(11), updated_at: at(11) });
    whoop.docs.recovery.set("184002", pending);
    const t = await createTenant();
    await integrate(t, "recovery_strap", CASES[0]!.credentials, CASES[0]!.settings);
    const ids = await newPatientDevice(t, "recovery_strap", "WHOOP wearer");
    expect((await linkDevice(t, "recovery_strap", whoop, { id: "20451" }, ids)).response.status).toBe(200);
    const send = (body: string) => deliver(t, "recovery_strap", body, whoopSignedHeaders("whoop-e2e-secret", body));
    expect(await send(whoopEvent("recovery.updated", SLEEP))).toMatchObject({ status: "processed", readings: 5, rejected: 0 });
    const absent = await observations(t, ids.patientId);
    expect(absent.every((o) => o.valueQuantity === undefined && o.dataAbsentReason !== undefined)).toBe(true);
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([]);
    // WHOOP scores it and says so again.
    whoop.docs.recovery.set("184002", { ...pending, updated_at: at(11.5), score_state: "SCORED", score: { user_calibrating: false, recovery_score: 38, resting_heart_rate: 58, hrv_rmssd_milli: 29.5, spo2_percentage: 95.1, skin_temp_celsius: 33.2 } });
    expect(await send(whoopEvent("recovery.updated", SLEEP))).toMatchObject({ status: "processed", readings: 5, rejected: 0 });
    const scored = (await observations(t, ids.patientId)).filter((o) => o.valueQuantity);
    expect(sortRows(scored.map(rowOf))).toEqual(sortRows([["recovery-score", 38, "{score}"], ["40443-4", 58, "/min"], ["hrv-rmssd", 29.5, "ms"], ["2708-6", 95.1, "%"], ["61008-9", 33.2, "Cel"]]));
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([29.5]);
    whoop.docs.recovery.delete("184002");
    expect(await send(whoopEvent("recovery.deleted", SLEEP))).toMatchObject({ status: "processed", deleted: 1 });
    const after = await observations(t, ids.patientId);
    expect(after.length).toBe(10);
    expect(after.every((o) => o.status === "entered-in-error")).toBe(true);
  });
});

describe("readings the device core refuses are counted, with the reason", () => {
  let t: Tenant;
  let ids: { patientId: string; deviceId: string };
  // Oura answers a sleep period whose end is missing (a period still open): its interval readings cannot be stored.
  const open = { ...OURA_SLEEP, id: "e2e-sleep-open", bedtime_end: null, heart_rate: null, hrv: null };

  beforeAll(async () => {
    oura.docs.set("sleep", [...(oura.docs.get("sleep") ?? []), open]);
    t = await createTenant();
    await integrate(t, "smart_ring", CASES[4]!.credentials, CASES[4]!.settings);
    ids = await newPatientDevice(t, "smart_ring", "Oura wearer");
    expect((await linkDevice(t, "smart_ring", oura, { id: "oura-e2e-user" }, ids)).response.status).toBe(200);
  });

  it("on the webhook event: the readings stored, those refused and why; nothing claimed that was not stored", async () => {
    const body = ouraEvent("sleep", "e2e-sleep-open");
    const event = await deliver(t, "smart_ring", body, ouraSignedHeaders("oura-e2e-secret", body));
    expect(event).toMatchObject({ status: "processed", readings: 0, rejected: 5 });
    const { rejections } = event;
    expect(rejections.map((r) => r.metric).sort()).toEqual(["hrv", "respiratory_rate", "resting_heart_rate", "sleep", "sleep_efficiency"]);
    expect(rejections.every((r) => r.record === "e2e-sleep-open" && /^time\.end: must be an ISO 8601 date-time/.test(r.reason))).toBe(true);
    expect(await observations(t, ids.patientId)).toEqual([]);
  });

  it("in the sync log: readings_rejected with each record's reason", async () => {
    const log = await syncAndWait(t, ids.deviceId, { data_types: ["sleep"], ...around });
    expect(log.state, JSON.stringify(log)).toBe("completed");
    const sleep = byType(log, "sleep")!;
    expect(sleep).toMatchObject({ readings_rejected: 5, observations_created: 11 });
    expect(sleep.errors.filter((e) => e.record === "e2e-sleep-open").length).toBe(5);
    expect(sleep.errors[0]?.reason).toMatch(/^time\.end: must be an ISO 8601 date-time/);
  });
});

describe("two patients' records of the same instant stay two", () => {
  it("Oura heart rate samples and Polar nights have no id of their own: each is the device's", async () => {
    const t = await createTenant();
    await integrate(t, "smart_ring", CASES[4]!.credentials, CASES[4]!.settings);
    await integrate(t, "training_platform", CASES[2]!.credentials, CASES[2]!.settings);
    for (const [kind, mock, users, sync, code] of [
      ["smart_ring", oura, [{ id: "oura-e2e-user" }, { id: "oura-e2e-user-2" }], { data_types: ["heartrate"], ...around }, "8867-4"],
      ["training_platform", polar, [{ id: "58213" }, { id: "58214" }], { data_types: ["sleep"], ...around }, "93832-4"],
    ] as const) {
      const patients: string[] = [];
      for (const user of users) {
        const ids = await newPatientDevice(t, kind, `${kind} ${user.id}`);
        expect((await linkDevice(t, kind, mock, user, ids)).response.status).toBe(200);
        // Both users have a record of the same instant (these mocks give every user the same data).
        expect((await syncAndWait(t, ids.deviceId, sync)).state).toBe("completed");
        patients.push(ids.patientId);
      }
      for (const patient of patients) expect(withCode(await observations(t, patient), code).length, `${kind} ${patient}`).toBeGreaterThan(0);
    }
  });
});

describe("Oura: a daily_activity document updated through the day", () => {
  // Oura re-sends the day's document under the same id as steps and calories grow (event_type "update").
  const ACT = { id: "e2e-act-growing", day: NIGHT, score: 70, steps: 3100, active_calories: 120, timestamp: `${NIGHT}T04:00:00+00:00` };
  const put = (doc: typeof ACT) => oura.docs.set("daily_activity", [...(oura.docs.get("daily_activity") ?? []).filter((d) => (d as { id: string }).id !== ACT.id), doc]);
  let t: Tenant;
  let ids: { patientId: string; deviceId: string };
  const send = (eventType: string) => {
    const body = ouraEvent("daily_activity", ACT.id, eventType);
    return deliver(t, "smart_ring", body, ouraSignedHeaders("oura-e2e-secret", body));
  };
  const steps = async () =>
    withCode(await observations(t, ids.patientId), "55423-8").filter((o) => (o as { identifier?: { value: string }[] }).identifier?.[0]?.value.includes(`|${ACT.id}|`));

  beforeAll(async () => {
    put(ACT);
    t = await createTenant();
    await integrate(t, "smart_ring", CASES[4]!.credentials, CASES[4]!.settings);
    ids = await newPatientDevice(t, "smart_ring", "Oura wearer");
    expect((await linkDevice(t, "smart_ring", oura, { id: "oura-e2e-user" }, ids)).response.status).toBe(200);
  });

  it("the update gives the Observations new versions and the vitals the new values; the event counts them", async () => {
    expect(await send("create")).toMatchObject({ status: "processed", readings: 3, updated: 0, rejected: 0 });
    expect((await vitalValues(t, ids.patientId, "steps")).values).toEqual([3100]);
    put({ ...ACT, score: 78, steps: 8450, active_calories: 355 });
    expect(await send("update")).toMatchObject({ status: "processed", readings: 3, updated: 3, rejected: 0 });
    const [obs] = await steps();
    expect(obs).toMatchObject({ status: "final", valueQuantity: { value: 8450 } });
    const versions = ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${(obs as { id: string }).id}/_history`)).json()) as { entry: { resource: { valueQuantity: { value: number } } }[] }).entry;
    expect(versions.map((e) => e.resource.valueQuantity.value).sort((a, b) => a - b)).toEqual([3100, 8450]);
    expect((await vitalValues(t, ids.patientId, "steps")).values).toEqual([8450]);
    // The same document announced again, and a manual sync: nothing changes (the sync creates the case's own e2e-act-1).
    expect(await send("update")).toMatchObject({ status: "processed", readings: 3, updated: 0 });
    expect((await syncAndWait(t, ids.deviceId, { data_types: ["daily_activity"], ...around })).data_types.find((d) => d.data_type === "daily_activity")).toMatchObject({
      observations_created: 3,
      observations_updated: 0,
      duplicates_skipped: 3,
    });
  });

  it("a delivery that fails after updating and succeeds on its retry counts the updates of both attempts", async () => {
    put({ ...ACT, score: 74, steps: 6000, active_calories: 250 });
    const body = ouraEvent("daily_activity", ACT.id, "update");
    const eventId = crypto.randomUUID();
    const outcome: string[] = [];
    const attempt = (attempts: number) =>
      processDeviceEventBatch(
        {
          queue: "cdis-device-events",
          messages: [{ id: eventId, timestamp: new Date(), attempts, body: { orgId: t.orgId, eventId, delivery: { kind: "smart_ring", body, receivedAt: new Date().toISOString() } }, ack: () => outcome.push(`ack ${attempts}`), retry: () => outcome.push(`retry ${attempts}`) }],
        } as unknown as MessageBatch<DeviceEventMessage>,
        env,
        contextForOrg,
      );
    failAfterStoring = 1;
    await attempt(1);
    const row = async () => (await webhookEvents(t)).find((e) => e.id === eventId);
    // The first attempt updated the three Observations, then failed: the row keeps that count.
    expect(await row()).toMatchObject({ status: "failed", attempts: 1, updated: 3 });
    await attempt(2);
    expect(outcome).toEqual(["retry 1", "ack 2"]);
    // The retry meets them as current (duplicates): the count stays the delivery's, not the last attempt's.
    expect(await row()).toMatchObject({ status: "processed", readings: 3, updated: 3, rejected: 0 });
    const [obs] = await steps();
    expect(obs).toMatchObject({ valueQuantity: { value: 6000 }, meta: { versionId: "3" } });
    // A queue redelivery of the processed message changes nothing.
    await attempt(3);
    expect(await row()).toMatchObject({ status: "processed", updated: 3 });
  });

  it("a deleted document stays deleted when a changed copy arrives late", async () => {
    expect(await send("delete")).toMatchObject({ status: "processed", deleted: 1 });
    put({ ...ACT, score: 80, steps: 9999, active_calories: 400 });
    expect(await send("update")).toMatchObject({ status: "processed", updated: 0 });
    expect((await steps()).map((o) => o.status)).toEqual(["entered-in-error"]);
    expect((await vitalValues(t, ids.patientId, "steps")).values).toEqual([]);
    oura.docs.set("daily_activity", (oura.docs.get("daily_activity") ?? []).filter((d) => (d as { id: string }).id !== ACT.id));
  });
});
