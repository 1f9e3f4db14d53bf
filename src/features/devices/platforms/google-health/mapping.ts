// Google Health API v4 data points → readings (pure). Shapes as in the v4 discovery document
// (health/v4/health-api.json, revision 20260416): a DataPoint carries one member named after
// its data type in camelCase (`heart-rate` → `heartRate`); int64 values arrive as strings;
// instants are RFC 3339 with the user's offset beside them as a google-duration ("-18000s").
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading, ReadingTime } from "../../reading";
import { dayInterval, isoWithOffset, reading } from "../readings";

export const GOOGLE_HEALTH_KIND = "activity_tracker";

type Doc = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Doc => (v && typeof v === "object" && !Array.isArray(v) ? (v as Doc) : {});

/** A number from a JSON number or an int64 string; undefined otherwise. */
export function int64(v: unknown): number | undefined {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : typeof v === "number" ? v : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** google-duration ("3600s", "-18000s", "19800.5s") → whole seconds. */
function offsetSeconds(v: unknown): number {
  const m = typeof v === "string" ? /^(-?\d+(?:\.\d+)?)s$/.exec(v) : null;
  return m ? Math.round(Number(m[1])) : 0;
}

/** An RFC 3339 instant shown at the user's local offset (the same instant). */
function localInstant(time: unknown, offset: unknown): string | undefined {
  const ms = typeof time === "string" ? Date.parse(time) : Number.NaN;
  if (!Number.isFinite(ms)) return undefined;
  // Whole seconds: the finest resolution Google stores (heart rate, 1 s).
  return isoWithOffset(Math.floor(ms / 1000), offsetSeconds(offset));
}

/** ObservationSampleTime → an instant. */
function sampleAt(sampleTime: unknown): ReadingTime | undefined {
  const s = obj(sampleTime);
  const at = localInstant(s.physicalTime, s.utcOffset);
  return at ? { at } : undefined;
}

/** ObservationTimeInterval / SessionTimeInterval → an interval. */
function intervalOf(interval: unknown): ReadingTime | undefined {
  const i = obj(interval);
  const start = localInstant(i.startTime, i.startUtcOffset);
  const end = localInstant(i.endTime, i.endUtcOffset);
  return start && end ? { start, end } : undefined;
}

/** google.type.Date → the day as an interval. */
function dateOf(date: unknown): ReadingTime | undefined {
  const d = obj(date);
  const [y, m, day] = [int64(d.year), int64(d.month), int64(d.day)];
  if (!y || !m || !day) return undefined;
  return dayInterval(`${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(day).padStart(2, "0")}`);
}

const timeKey = (t: ReadingTime) => ("at" in t ? t.at : t.start);

interface Context {
  readonly device: LinkedDevice;
  /** The data point's own name (identifiable types: sleep, exercise), else one made of the user, type and time. */
  readonly recordId: (t: ReadingTime) => string;
}

type Mapper = (c: Context, value: Doc) => Reading[];

const R = (device: LinkedDevice, input: Parameters<typeof reading>[2]) => reading(GOOGLE_HEALTH_KIND, device, input);

/** One value (`field`) at the time `timeOf` reads from the point: a sample time, an interval or a day. */
const valued =
  (timeOf: (v: Doc) => ReadingTime | undefined) =>
  (metric: string, unit: string, field: string, attributes?: Record<string, string>): Mapper =>
  (c, v) => {
    const time = timeOf(v);
    const value = int64(v[field]);
    return time && value !== undefined ? [R(c.device, { metric, value, unit, time, sourceRecordId: c.recordId(time), attributes })] : [];
  };

const sample = valued((v) => sampleAt(v.sampleTime));
const interval = valued((v) => intervalOf(v.interval));
/** A day in the user's time zone. */
const daily = valued((v) => dateOf(v.date));

// Google documents every HRV value here as RMSSD, except HeartRateVariability.standardDeviationMilliseconds (SDNN).
const rmssd = { method: "rmssd" };
const STAGE_METRICS: Readonly<Record<string, string>> = { LIGHT: "sleep_light", DEEP: "sleep_deep", REM: "sleep_rem" };

/** A sleep session: minutes asleep (Google's own sum), and the LIGHT/DEEP/REM totals of a "stages" sleep. */
const sleep: Mapper = (c, v) => {
  const time = intervalOf(v.interval);
  if (!time) return [];
  const summary = obj(v.summary);
  const id = c.recordId(time);
  const attributes = { sleep_type: String(v.type ?? "SLEEP_TYPE_UNSPECIFIED"), ...(obj(v.metadata).nap === true ? { nap: "true" } : {}) };
  const out = [R(c.device, { metric: "sleep", value: int64(summary.minutesAsleep), unit: "min", time, sourceRecordId: id, attributes })];
  for (const stage of Array.isArray(summary.stagesSummary) ? summary.stagesSummary : []) {
    const s = obj(stage);
    const metric = STAGE_METRICS[String(s.type)];
    const minutes = int64(s.minutes);
    if (metric && minutes !== undefined) out.push(R(c.device, { metric, value: minutes, unit: "min", time, sourceRecordId: id }));
  }
  return out;
};

/** HRV at a sample time: RMSSD and, when Google has it, SDNN (LOINC 80404-7), each its own metric. */
const hrvSample: Mapper = (c, v) => [
  ...sample("hrv", "ms", "rootMeanSquareOfSuccessiveDifferencesMilliseconds", rmssd)(c, v),
  ...sample("hrv_sdnn", "ms", "standardDeviationMilliseconds")(c, v),
];

/** google-duration ("2700s", "1800.5s") → minutes; undefined when absent or malformed. */
function durationMinutes(v: unknown): number | undefined {
  const m = typeof v === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(v) : null;
  return m ? Number(m[1]) / 60 : undefined;
}

/**
 * An exercise session, stored as the other platforms store workouts: its summary's calories
 * (kcal), average heart rate, distance (mm), steps, elevation gain (mm) and active duration
 * (pauses excluded) over the session's interval, each tagged with Google's exercise type.
 */
const exercise: Mapper = (c, v) => {
  const time = intervalOf(v.interval);
  if (!time) return [];
  const s = obj(v.metricsSummary);
  const id = c.recordId(time);
  const attributes = { activity_type: String(v.exerciseType ?? "EXERCISE_TYPE_UNSPECIFIED") };
  const parts: [string, unknown, string, Record<string, string>?][] = [
    ["calories", s.caloriesKcal, "kcal", { kind: "active" }],
    ["heart_rate", s.averageHeartRateBeatsPerMinute, "/min", { statistic: "average" }],
    ["distance", s.distanceMillimeters, "mm"],
    ["steps", s.steps, "steps"],
    ["elevation_gain", s.elevationGainMillimeters, "mm"],
    ["active_minutes", durationMinutes(v.activeDuration), "min"],
  ];
  return parts.flatMap(([metric, raw, unit, extra]) => {
    const value = int64(raw);
    return value === undefined ? [] : [R(c.device, { metric, value, unit, time, sourceRecordId: id, attributes: { ...attributes, ...extra } })];
  });
};

/** A blood glucose sample: a CGM's (interstitial fluid) is the CGM metric, a meter's the blood one. */
const bloodGlucose: Mapper = (c, v) => {
  const cgm = v.measurementSource === "CONTINUOUS_GLUCOSE_MONITORING" || v.specimen === "INTERSTITIAL_FLUID";
  const attributes = Object.fromEntries(["mealType", "measurementTiming", "specimen"].flatMap((k) => (typeof v[k] === "string" ? [[k.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`), v[k] as string]] : [])));
  return sample(cgm ? "cgm_glucose" : "blood_glucose", "mg/dL", "bloodGlucoseMilligramsPerDeciliter", attributes)(c, v);
};

/** By Google's data type id (kebab-case, as in the dataPoints URL). */
export const googleHealthMappers: Readonly<Record<string, Mapper>> = {
  "heart-rate": sample("heart_rate", "/min", "beatsPerMinute"),
  "daily-resting-heart-rate": daily("resting_heart_rate", "/min", "beatsPerMinute"),
  "heart-rate-variability": hrvSample,
  "daily-heart-rate-variability": daily("hrv", "ms", "averageHeartRateVariabilityMilliseconds", rmssd),
  "oxygen-saturation": sample("spo2", "%", "percentage"),
  "daily-oxygen-saturation": daily("spo2", "%", "averagePercentage", { aggregate: "daily_average_during_sleep" }),
  "daily-respiratory-rate": daily("respiratory_rate", "/min", "breathsPerMinute"),
  weight: sample("weight", "g", "weightGrams"),
  steps: interval("steps", "steps", "count"),
  distance: interval("distance", "mm", "millimeters"),
  sleep,
  "body-fat": sample("body_fat", "%", "percentage"),
  height: sample("height", "mm", "heightMillimeters"),
  "core-body-temperature": sample("body_temperature", "Cel", "temperatureCelsius"),
  "blood-glucose": bloodGlucose,
  "active-energy-burned": interval("calories", "kcal", "kcal", { kind: "active" }),
  floors: interval("floors", "floors", "count"),
  altitude: interval("elevation_gain", "mm", "gainMillimeters"),
  exercise,
};

/** `heart-rate` → `heartRate`: the DataPoint member holding a point of that type. */
export const memberOf = (dataType: string) => dataType.replace(/-([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());

/** One DataPoint of `dataType` → readings (none when it is not of that type or has no usable time/value). */
export function mapGoogleHealth(device: LinkedDevice, dataType: string, point: unknown): Reading[] {
  const mapper = Object.hasOwn(googleHealthMappers, dataType) ? googleHealthMappers[dataType] : undefined;
  const p = obj(point);
  const value = obj(p[memberOf(dataType)]);
  if (!mapper || Object.keys(value).length === 0) return [];
  const name = typeof p.name === "string" && p.name ? p.name : undefined;
  // Most types have no name; a (device, type, time) key keeps two patients' identical timestamps apart. The
  // device, not the Google user: a manual sync knows only the device, and both paths must give one id.
  const recordId = (t: ReadingTime) => name ?? `${device.deviceId}/${dataType}@${timeKey(t)}`;
  return mapper({ device, recordId }, value);
}
