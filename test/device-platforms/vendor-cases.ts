// The five vendors of the device-core tests (vendors-device-core.test.ts, vendors-device-records.test.ts):
// their mocked clouds holding the reference's samples moved to yesterday, and each platform as data.
// vendorWorld() builds fresh mocks per test file, so one file's deletes and updates never reach
// another's, whatever order the files run in and whether they share a runtime.
import { beforeAll, expect } from "vitest";
import created from "../fixtures/wearables/suunto-workout-created.json";
import dailies from "../fixtures/wearables/garmin-dailies.json";
import polarExercise from "../fixtures/wearables/polar-exercise.json";
import ouraSleep from "../fixtures/wearables/oura-sleep.json";
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { useDevicePlatformServices } from "../support/service-profile";
import type { Obs, SyncLogView } from "./device-core";
import { GARMIN_ORIGIN, garminMock, garminPushHeaders } from "./mocks/garmin";
import { OURA_ORIGIN, ouraMock, ouraSignedHeaders } from "./mocks/oura";
import { POLAR_ORIGIN, polarMock, polarSignedHeaders } from "./mocks/polar";
import { SUBSCRIPTION_KEY, SUUNTO_ORIGIN, suuntoMock, suuntoSignedHeaders } from "./mocks/suunto";
import { type MockUser, mockNetwork, type VendorMock } from "./mocks/vendor-mock";
import { WHOOP_ORIGIN, whoopMock, whoopSignedHeaders, whoopSleep } from "./mocks/whoop";

/** One Observation as the test expects it: its primary code, value and UCUM unit. */
export type Expected = readonly [code: string, value: number, ucum: string];

export interface VendorCase {
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

/** The vendors' clouds and records, new for each call, and the platforms as data. */
export function vendorWorld() {
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
  return { DAY, Y, at, dateOf, NIGHT, WHOOP_SLEEP, OURA_SLEEP, whoop, polar, oura, whoopEvent, ouraEvent, around, byType, CASES };
}

export const round = (v: number) => Math.round(v * 1e4) / 1e4;
export const sortRows = (rows: (readonly [string, number, string])[]) => [...rows].map(([c, v, u]) => [c, round(v), u] as const).sort((x, y) => `${x[0]}|${x[1]}`.localeCompare(`${y[0]}|${y[1]}`));
export const rowOf = (o: Obs) => [o.code.coding[0]!.code, o.valueQuantity?.value ?? Number.NaN, o.valueQuantity?.code ?? ""] as const;

/** Faults a test injects into the device core's ingest. */
export interface IngestFaults {
  /** How many ingests to fail after they stored everything (a shard lost after the commit, a later step failing). */
  failAfterStoring: number;
}

/** Before the file's tests: the device core as the Worker wires it, fetching from these vendors' mocks only. */
export function useVendorClouds(mocks: readonly VendorMock[]): IngestFaults {
  const faults: IngestFaults = { failAfterStoring: 0 };
  beforeAll(() => {
    const network = mockNetwork(...mocks);
    useDevicePlatformServices({
      ...devicePlatformServices,
      fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: network }),
      async ingest(...args) {
        const results = await devicePlatformServices.ingest(...args);
        if (faults.failAfterStoring > 0) {
          faults.failAfterStoring -= 1;
          throw new Error("the shard went away after storing");
        }
        return results;
      },
    });
  });
  return faults;
}
