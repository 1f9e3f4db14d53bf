// Google Health API pieces without HTTP: data points (test/fixtures/wearables/google-health, in
// the v4 discovery document's shapes) → readings, the AIP-160 range filters, what a notification
// names without relying on field names, and the ECDSA P-256 check against Node's crypto (DER and
// raw r‖s signatures, PEM and JWK keys).
import { generateKeyPairSync, sign, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rangeFilter } from "../../../src/features/devices/platforms/google-health/adapter";
import { failureOf } from "../../../src/features/devices/platforms/vendor-http";
import { derToRaw, verifyEcdsaP256 } from "../../../src/features/devices/platforms/google-health/ecdsa";
import { googleHealthMappers, int64, mapGoogleHealth, memberOf } from "../../../src/features/devices/platforms/google-health/mapping";
import { googleEvents, NOTIFIED_DATA_TYPES } from "../../../src/features/devices/platforms/google-health/notifications";
import { mapRollup, rollUpPage } from "../../../src/features/devices/platforms/google-health/rollup";
import { normaliseReading } from "../../../src/features/devices/metrics/normalise";
import { toObservation } from "../../../src/features/devices/observation";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "../../fixtures/wearables/google-health", name), "utf8"));
const device = { deviceId: "dev-1", patientId: "pat-1", platformUserId: "aBcD-1234-health" };
const types = Object.keys(googleHealthMappers);

describe("Google Health data points → readings", () => {
  it("heart rate: int64 strings, the instant at the user's offset, a per-device record id", () => {
    const [first, second] = fixture("heart-rate.json").dataPoints.map((p: unknown) => mapGoogleHealth(device, "heart-rate", p)[0]);
    expect(first).toMatchObject({ metric: "heart_rate", value: 72, unit: "/min", platform: "activity_tracker", time: { at: "2026-03-14T02:31:05-05:00" } });
    expect(first.sourceRecordId).toBe("dev-1/heart-rate@2026-03-14T02:31:05-05:00");
    // A manual sync knows the device but not the Google user: the same point gets the same id.
    const { platformUserId: _, ...syncDevice } = device;
    expect(mapGoogleHealth(syncDevice, "heart-rate", fixture("heart-rate.json").dataPoints[0])[0]?.sourceRecordId).toBe(first.sourceRecordId);
    expect(second.value).toBe(70);
    expect(Date.parse(first.time.at)).toBe(Date.parse("2026-03-14T07:31:05Z"));
  });

  it("sleep: minutes asleep and the LIGHT/DEEP/REM totals, keyed by the data point's name; AWAKE is not sleep", () => {
    const readings = mapGoogleHealth(device, "sleep", fixture("sleep.json").dataPoints[0]);
    const byMetric = Object.fromEntries(readings.map((r) => [r.metric, r.value]));
    expect(byMetric).toEqual({ sleep: 412, sleep_light: 231, sleep_deep: 82, sleep_rem: 99 });
    expect(readings.every((r) => r.unit === "min" && r.sourceRecordId === "users/aBcD-1234-health/dataTypes/sleep/dataPoints/a1b2c3d4-e5f6-7890-1234-567890abcdef")).toBe(true);
    expect(readings[0]?.time).toEqual({ start: "2026-03-13T23:40:00+01:00", end: "2026-03-14T07:10:00+01:00" });
    expect(readings[0]?.attributes).toEqual({ sleep_type: "STAGES" });
  });

  it("every other mapped type, with the unit Google sends (grams, millimetres) and RMSSD named as such", () => {
    const points = fixture("daily.json") as Record<string, unknown>;
    const one = (type: string) => mapGoogleHealth(device, type, points[type]);
    expect(one("daily-resting-heart-rate")).toMatchObject([{ metric: "resting_heart_rate", value: 57, unit: "/min", time: { start: "2026-03-14T00:00:00.000Z" } }]);
    expect(one("daily-heart-rate-variability")).toMatchObject([{ metric: "hrv", value: 44.1, unit: "ms", attributes: { method: "rmssd" } }]);
    expect(one("daily-oxygen-saturation")).toMatchObject([{ metric: "spo2", value: 95.8, unit: "%" }]);
    expect(one("daily-respiratory-rate")).toMatchObject([{ metric: "respiratory_rate", value: 15.2, unit: "/min" }]);
    // No standardDeviationMilliseconds: no SDNN reading.
    expect(one("heart-rate-variability")).toMatchObject([{ metric: "hrv", value: 39.5, attributes: { method: "rmssd" } }]);
    expect(one("oxygen-saturation")).toMatchObject([{ metric: "spo2", value: 96, time: { at: "2026-03-14T03:00:00Z" } }]);
    expect(one("weight")).toMatchObject([{ metric: "weight", value: 72450.5, unit: "g", time: { at: "2026-03-14T07:30:00+01:00" } }]);
    expect(one("steps")).toMatchObject([{ metric: "steps", value: 104, unit: "steps", time: { start: "2026-03-14T09:00:00+01:00", end: "2026-03-14T09:01:00+01:00" } }]);
    expect(one("distance")).toMatchObject([{ metric: "distance", value: 81250, unit: "mm" }]);
  });

  it("a point of another type, a missing value or time, and an unknown type give nothing", () => {
    const points = fixture("daily.json") as Record<string, unknown>;
    expect(mapGoogleHealth(device, "steps", points.weight)).toEqual([]);
    expect(mapGoogleHealth(device, "steps", { steps: { interval: {}, count: "5" } })).toEqual([]);
    expect(mapGoogleHealth(device, "weight", { weight: { sampleTime: { physicalTime: "2026-03-14T06:30:00Z" } } })).toEqual([]);
    expect(mapGoogleHealth(device, "nutrition-log", { nutritionLog: { x: 1 } })).toEqual([]);
    expect([int64("12"), int64(3.5), int64(""), int64("x"), int64(null)]).toEqual([12, 3.5, undefined, undefined, undefined]);
    expect(memberOf("daily-oxygen-saturation")).toBe("dailyOxygenSaturation");
  });
});

describe("range filters (ListDataPointsRequest.filter)", () => {
  it("names each kind of type's time field as the discovery document lists it", () => {
    const from = "2026-03-10T00:00:00.000Z";
    const to = "2026-03-17T12:00:00.000Z";
    expect(rangeFilter("steps", from, to)).toBe(`steps.interval.start_time >= "${from}" AND steps.interval.start_time < "${to}"`);
    expect(rangeFilter("heart-rate", from, to)).toBe(`heart_rate.sample_time.physical_time >= "${from}" AND heart_rate.sample_time.physical_time < "${to}"`);
    expect(rangeFilter("daily-resting-heart-rate", from, to)).toBe('daily_resting_heart_rate.date >= "2026-03-10" AND daily_resting_heart_rate.date < "2026-03-18"');
    expect(rangeFilter("sleep", from, to)).toBe(`sleep.interval.end_time >= "${from}" AND sleep.interval.end_time < "${to}"`);
  });
});

describe("Google's failures", () => {
  it("a 429 without Retry-After waits out the per-minute window (300/min per user); 410 is the platform retired", async () => {
    const body = JSON.stringify({ error: { code: 429, message: "Quota exceeded", status: "RESOURCE_EXHAUSTED" } });
    expect(await failureOf(new Response(body, { status: 429 }), "GET /v4/users/me/dataTypes/steps/dataPoints")).toMatchObject({ kind: "rate_limited", retryAfterSeconds: 60 });
    expect(await failureOf(new Response(body, { status: 429, headers: { "retry-after": "12" } }), "GET")).toMatchObject({ kind: "rate_limited", retryAfterSeconds: 12 });
    expect((await failureOf(new Response("{}", { status: 410 }), "GET")).message).toMatch(/^platform retired: GET: HTTP 410/);
  });
});

describe("more data types", () => {
  const at = { physicalTime: "2026-03-14T07:00:00Z", utcOffset: "-18000s" };
  const interval = { startTime: "2026-03-14T07:00:00Z", startUtcOffset: "0s", endTime: "2026-03-14T07:01:00Z", endUtcOffset: "0s" };
  const normalised = (type: string, point: unknown) =>
    mapGoogleHealth(device, type, point).map((r) => {
      const n = normaliseReading(r);
      if (!n.ok) throw new Error(JSON.stringify(n.errors));
      return [r.metric, n.reading.value, n.reading.ucum, n.reading.definition.coding[0]?.code];
    });

  it("body fat, height (mm → cm), core temperature, glucose (meter vs CGM), active energy, floors, altitude (mm → m)", () => {
    expect(normalised("body-fat", { bodyFat: { sampleTime: at, percentage: 21.4 } })).toEqual([["body_fat", 21.4, "%", "41982-0"]]);
    expect(normalised("height", { height: { sampleTime: at, heightMillimeters: "1783" } })).toEqual([["height", 178.3, "cm", "8302-2"]]);
    expect(normalised("core-body-temperature", { coreBodyTemperature: { sampleTime: at, temperatureCelsius: 37.2, measurementLocation: "EAR" } })).toEqual([["body_temperature", 37.2, "Cel", "8310-5"]]);
    expect(normalised("blood-glucose", { bloodGlucose: { sampleTime: at, bloodGlucoseMilligramsPerDeciliter: 104, measurementSource: "SELF_MONITORING_BLOOD_GLUCOSE", specimen: "CAPILLARY_BLOOD" } })).toEqual([["blood_glucose", 104, "mg/dL", "2339-0"]]);
    expect(normalised("blood-glucose", { bloodGlucose: { sampleTime: at, bloodGlucoseMilligramsPerDeciliter: 98, measurementSource: "CONTINUOUS_GLUCOSE_MONITORING" } })).toEqual([["cgm_glucose", 98, "mg/dL", "99504-3"]]);
    expect(normalised("active-energy-burned", { activeEnergyBurned: { interval, kcal: 12.5 } })).toEqual([["calories", 12.5, "kcal", "41981-2"]]);
    expect(normalised("floors", { floors: { interval, count: "3" } })).toEqual([["floors", 3, "{floors}", "floors-climbed"]]);
    expect(normalised("altitude", { altitude: { interval, gainMillimeters: "9144" } })).toEqual([["elevation_gain", 9.144, "m", "elevation-gain"]]);
    expect(mapGoogleHealth(device, "blood-glucose", { bloodGlucose: { sampleTime: at, bloodGlucoseMilligramsPerDeciliter: 104, mealType: "LUNCH" } })[0]?.attributes).toEqual({ meal_type: "LUNCH" });
  });

  it("an exercise session: its summary over the session, as the other platforms store workouts", () => {
    const point = {
      name: "users/aBcD-1234-health/dataTypes/exercise/dataPoints/2026443605080188808",
      exercise: {
        interval: { startTime: "2026-03-14T17:00:00Z", startUtcOffset: "3600s", endTime: "2026-03-14T17:45:00Z", endUtcOffset: "3600s" },
        exerciseType: "RUNNING",
        displayName: "Run",
        activeDuration: "2580s",
        metricsSummary: { caloriesKcal: 455.5, averageHeartRateBeatsPerMinute: "151", distanceMillimeters: 7_250_000, steps: "6912", elevationGainMillimeters: 42_000 },
      },
    };
    const rows = normalised("exercise", point);
    expect(rows).toEqual([
      ["calories", 455.5, "kcal", "41981-2"],
      ["heart_rate", 151, "/min", "8867-4"],
      ["distance", 7250, "m", "distance"],
      ["steps", 6912, "{steps}", "55423-8"],
      ["elevation_gain", 42, "m", "elevation-gain"],
      ["active_minutes", 43, "min", "55411-3"],
    ]);
    const readings = mapGoogleHealth(device, "exercise", point);
    expect(readings.every((r) => r.sourceRecordId === point.name && r.attributes?.activity_type === "RUNNING")).toBe(true);
    expect(readings[0]?.time).toEqual({ start: "2026-03-14T18:00:00+01:00", end: "2026-03-14T18:45:00+01:00" });
  });

  it("sessions filter on the civil start time, a day either side of the range", () => {
    expect(rangeFilter("exercise", "2026-03-10T05:00:00Z", "2026-03-14T05:00:00Z")).toBe('exercise.interval.civil_start_time >= "2026-03-09" AND exercise.interval.civil_start_time < "2026-03-16"');
  });
});

describe("roll-ups (dataPoints:rollUp)", () => {
  const window = { startTime: "2026-03-14T07:00:00Z", endTime: "2026-03-14T07:05:00Z" };

  it("heart rate: the mean as the value over the window, min and max as observation-statistics components", () => {
    const [r] = mapRollup(device, "heart-rate", "5m", { ...window, heartRate: { beatsPerMinuteAvg: 71.4, beatsPerMinuteMin: 64, beatsPerMinuteMax: 83 } });
    expect(r).toMatchObject({ metric: "heart_rate", value: 71.4, unit: "/min", time: { start: "2026-03-14T07:00:00.000Z", end: "2026-03-14T07:05:00.000Z" }, statistics: { minimum: 64, maximum: 83 } });
    expect(r?.attributes).toEqual({ statistic: "average", resolution: "5m" });
    expect(r?.sourceRecordId).toBe("dev-1/heart-rate/5m@2026-03-14T07:00:00.000Z");
    const n = normaliseReading(r!);
    if (!n.ok) throw new Error("not normalised");
    const obs = toObservation(n.reading, { id: "dev-1", name: "Pixel Watch" }) as Record<string, unknown>;
    expect(obs.effectivePeriod).toEqual({ start: "2026-03-14T07:00:00.000Z", end: "2026-03-14T07:05:00.000Z" });
    expect(obs.valueQuantity).toMatchObject({ value: 71.4, code: "/min" });
    expect(obs.component).toEqual([
      { code: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-statistics", code: "minimum", display: "Minimum" }], text: "heart_rate minimum" }, valueQuantity: { value: 64, unit: "bpm", system: "http://unitsofmeasure.org", code: "/min" } },
      { code: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-statistics", code: "maximum", display: "Maximum" }], text: "heart_rate maximum" }, valueQuantity: { value: 83, unit: "bpm", system: "http://unitsofmeasure.org", code: "/min" } },
    ]);
  });

  it("sums and means of the other types, converted; an empty window is no reading", () => {
    const value = (type: string, member: Record<string, unknown>) => {
      const [r] = mapRollup(device, type, "15m", { ...window, ...member });
      const n = r && normaliseReading(r);
      return n?.ok ? [n.reading.value, n.reading.ucum] : undefined;
    };
    expect(value("steps", { steps: { countSum: "412" } })).toEqual([412, "{steps}"]);
    expect(value("distance", { distance: { millimetersSum: "318000" } })).toEqual([318, "m"]);
    expect(value("weight", { weight: { weightGramsAvg: 81250 } })).toEqual([81.25, "kg"]);
    expect(value("core-body-temperature", { coreBodyTemperature: { temperatureCelsiusAvg: 36.9, temperatureCelsiusMin: 36.7, temperatureCelsiusMax: 37.1 } })).toEqual([36.9, "Cel"]);
    expect(value("altitude", { altitude: { gainMillimetersSum: "6000" } })).toEqual([6, "m"]);
    expect(value("steps", {})).toBeUndefined();
    expect(mapRollup(device, "steps", "5m", { startTime: "x", endTime: "y", steps: { countSum: "1" } })).toEqual([]);
  });

  it("asks for whole windows within Google's range cap, and walks chunks and pages through one cursor", async () => {
    const bodies: Record<string, unknown>[] = [];
    const call = {
      credentials: {},
      tokens: { accessToken: "t" },
      fetch: (async (url: string, init: RequestInit) => {
        expect(url).toBe("https://api.test/v4/users/me/dataTypes/heart-rate/dataPoints:rollUp");
        expect(init.method).toBe("POST");
        const body = JSON.parse(String(init.body)) as Record<string, unknown>;
        bodies.push(body);
        return Response.json(body.pageToken ? { rollupDataPoints: [] } : { rollupDataPoints: [], nextPageToken: "p2" });
      }) as typeof fetch,
    };
    const range = { dataType: "heart-rate", resolution: "5m", from: "2026-03-01T00:02:30Z", to: "2026-03-20T10:07:00Z" };
    const first = await rollUpPage(call, "https://api.test", device, range);
    expect(bodies[0]).toEqual({ range: { startTime: "2026-03-01T00:00:00.000Z", endTime: "2026-03-15T00:00:00.000Z" }, windowSize: "300s", pageSize: 10000 });
    expect(first.nextCursor).toBe(`${Date.parse("2026-03-01T00:00:00Z")}:p2`);
    const second = await rollUpPage(call, "https://api.test", device, { ...range, cursor: first.nextCursor });
    expect(bodies[1]).toMatchObject({ pageToken: "p2" });
    const third = await rollUpPage(call, "https://api.test", device, { ...range, cursor: second.nextCursor });
    // The last chunk ends at the last whole window before `to`.
    expect(bodies[2]).toMatchObject({ range: { startTime: "2026-03-15T00:00:00.000Z", endTime: "2026-03-20T10:05:00.000Z" } });
    expect(third.nextCursor).toBe(`${Date.parse("2026-03-15T00:00:00Z")}:p2`);
  });
});

describe("what a notification names", () => {
  it("users by resource name or bare id, data types by id, snake_case name or resource path, wherever they sit", () => {
    const events = googleEvents({ a: { b: ["users/u-1/dataTypes/sleep/dataPoints/x"] }, who: "u-2", kind: "heart_rate" }, types);
    expect(new Set(events.map((e) => e.platformUserId))).toEqual(new Set(["u-1", "u-2"]));
    expect(new Set(events.map((e) => e.dataType))).toEqual(new Set(["sleep", "heart-rate"]));
    expect(events.every((e) => e.action === "upsert")).toBe(true);
  });

  it("a resource name is kept ahead of many bare strings (at most 20 candidates)", () => {
    const noise = Array.from({ length: 30 }, (_, i) => `2026-03-${String(i + 1).padStart(2, "0")}`);
    const events = googleEvents({ days: noise, who: "users/real-user", type: "steps" }, types);
    expect(events[0]?.platformUserId).toBe("real-user");
    expect(new Set(events.map((e) => e.platformUserId)).size).toBe(20);
  });

  it("no data type named → the types Google notifies about; no user id → no event; `users/me` is nobody", () => {
    expect(googleEvents({ user: "u-9" }, types).map((e) => e.dataType).sort()).toEqual([...NOTIFIED_DATA_TYPES].sort());
    expect(googleEvents({ n: 1, flag: true }, types)).toEqual([]);
    expect(googleEvents({ who: "users/me", type: "steps" }, types).map((e) => e.platformUserId)).not.toContain("me");
  });
});

describe("X-HEALTHAPI-SIGNATURE (ECDSA P-256, SHA-256)", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const jwk = JSON.stringify(publicKey.export({ format: "jwk" }));
  const body = JSON.stringify({ data: { user: "users/u-1" } });
  const der = sign("sha256", Buffer.from(body), privateKey);
  const raw = sign("sha256", Buffer.from(body), { key: privateKey, dsaEncoding: "ieee-p1363" });

  it("verifies DER and raw signatures, base64 or base64url, with a PEM or a JWK key", async () => {
    expect(await verifyEcdsaP256(pem, der.toString("base64"), body)).toBe(true);
    expect(await verifyEcdsaP256(pem, raw.toString("base64url"), body)).toBe(true);
    expect(await verifyEcdsaP256(jwk, der.toString("base64url"), body)).toBe(true);
    // The DER → r‖s conversion gives what Node verifies as an IEEE P1363 signature.
    expect(verify("sha256", Buffer.from(body), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(derToRaw(new Uint8Array(der)) ?? []))).toBe(true);
  });

  it("refuses a tampered body, another key, garbage and a malformed key", async () => {
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "pem" }).toString();
    expect(await verifyEcdsaP256(pem, der.toString("base64"), `${body} `)).toBe(false);
    expect(await verifyEcdsaP256(other, der.toString("base64"), body)).toBe(false);
    expect(await verifyEcdsaP256(pem, "not*base64", body)).toBe(false);
    expect(await verifyEcdsaP256(pem, Buffer.from("short").toString("base64"), body)).toBe(false);
    expect(await verifyEcdsaP256("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", der.toString("base64"), body)).toBe(false);
    expect(await verifyEcdsaP256("{not json", der.toString("base64"), body)).toBe(false);
  });
});
