// Suunto workouts → readings (pure). `startTime` is epoch ms, `totalTime` seconds, and
// `timeOffsetInMinutes` the local offset; the user is named by username, not an id. The 24/7
// notifications carry samples inline (below).
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading } from "../../reading";
import { isoWithOffset, numberOr, reading } from "../readings";

export const SUUNTO_KIND = "outdoor_watch";
type Doc = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Doc => (v && typeof v === "object" ? (v as Doc) : {});

export function mapSuuntoWorkout(device: LinkedDevice, raw: unknown): Reading[] {
  const doc = obj(raw);
  const startMs = numberOr(doc.startTime);
  if (startMs === undefined || typeof doc.workoutKey !== "string") return [];
  const offset = (numberOr(doc.timeOffsetInMinutes) ?? 0) * 60;
  const seconds = numberOr(doc.totalTime) ?? 0;
  const time = { start: isoWithOffset(startMs / 1000, offset), end: isoWithOffset(startMs / 1000 + seconds, offset) };
  const id = doc.workoutKey;
  const attributes = numberOr(doc.activityId) !== undefined ? { suunto_activity_id: String(doc.activityId) } : undefined;
  const R = (metric: string, value: unknown, unit: string, extra?: Record<string, string>) =>
    reading(SUUNTO_KIND, device, { metric, value: numberOr(value), unit, time, sourceRecordId: id, attributes: { ...attributes, ...extra } });
  return [
    R("calories", doc.energyConsumption, "kcal", { kind: "active" }),
    R("steps", doc.stepCount, "steps"),
    R("distance", doc.totalDistance, "m"),
    R("heart_rate", obj(doc.hrdata).workoutAvgHR, "bpm", { statistic: "average" }),
    R("active_minutes", seconds / 60, "min"),
  ];
}

/**
 * The 24/7 notifications (`SUUNTO_247_ACTIVITY_CREATED`, `…_SLEEP_CREATED`, `…_RECOVERY_CREATED`)
 * carry their samples inline: `{type, username, samples: [{timestamp, entryData}]}`, the
 * timestamp an ISO instant with the user's offset. Suunto's page names the three types and what
 * they hold (activity: heart rate, steps; sleep: duration, HRV; recovery: balance, stress); the
 * `entryData` keys are those of its `/247samples/*` API as public integrations read them
 * (docs/wearables.md, "Suunto 24/7").
 */
export const SUUNTO_247_TYPES: Readonly<Record<string, Suunto247Type>> = {
  SUUNTO_247_ACTIVITY_CREATED: "activity",
  SUUNTO_247_SLEEP_CREATED: "sleep",
  SUUNTO_247_RECOVERY_CREATED: "recovery",
};
export type Suunto247Type = "activity" | "sleep" | "recovery";

/** Suunto's recovery StressState (0 is "invalid": no state). */
const STRESS_STATES: Readonly<Record<number, string>> = { 1: "relaxing", 2: "active", 3: "passive", 4: "stressful" };

/** A fraction (Suunto's SpO2 and recovery balance, 0–1) to percent, without float noise (0.73 → 73, not 73.00000000000001). */
const percentOf = (fraction: number | undefined) => (fraction === undefined ? undefined : Math.round(fraction * 1000) / 10);

type Emit = (metric: string, value: number | undefined, unit: string, time: Reading["time"], recordId: string, attributes?: Record<string, string>) => Reading[];
type SampleMapper = (data: Doc, at: string, username: string, emit: Emit) => Reading[];

const SAMPLE_MAPPERS: Readonly<Record<Suunto247Type, SampleMapper>> = {
  activity(data, at, username, R) {
    const id = `${username}/247-activity@${at}`;
    const spo2 = numberOr(data.SpO2);
    return [
      ...R("heart_rate", numberOr(data.HR), "bpm", { at }, id),
      ...R("steps", numberOr(data.StepCount), "steps", { at }, id),
      // Joules, as Suunto's daily statistics say of the same quantity; UCUM converts to kcal.
      ...R("calories", numberOr(data.EnergyConsumption), "J", { at }, id, { kind: "total" }),
      ...R("spo2", spo2 !== undefined && spo2 <= 1 ? percentOf(spo2) : spo2, "%", { at }, id),
      // A zero HRV is "not measured", never a value.
      ...R("hrv", numberOr(data.HRV) || undefined, "ms", { at }, id, { method: "rmssd" }),
    ];
  },
  sleep(data, _at, username, R) {
    const start = typeof data.BedtimeStart === "string" ? data.BedtimeStart : undefined;
    const end = typeof data.BedtimeEnd === "string" ? data.BedtimeEnd : undefined;
    if (!start || !end) return [];
    const period = { start, end };
    const id = typeof data.SleepId === "string" || typeof data.SleepId === "number" ? `${username}/sleep-${data.SleepId}` : `${username}/sleep@${start}`;
    const nap = data.IsNap === true ? { nap: "true" } : undefined;
    const stages = [numberOr(data.DeepSleepDuration), numberOr(data.LightSleepDuration), numberOr(data.REMSleepDuration)];
    // Asleep = the stages' sum (awake time is the rest of Duration, time in bed); without stages, Duration.
    const asleep = stages.some((s) => s !== undefined) ? stages.reduce<number>((a, s) => a + (s ?? 0), 0) : numberOr(data.Duration);
    return [
      ...R("sleep", asleep, "s", period, id, nap),
      ...R("sleep_deep", stages[0], "s", period, id, nap),
      ...R("sleep_light", stages[1], "s", period, id, nap),
      ...R("sleep_rem", stages[2], "s", period, id, nap),
      ...R("sleep_score", numberOr(data.SleepQualityScore), "score", period, id, nap),
      ...R("heart_rate", numberOr(data.HRAvg), "bpm", period, id, { ...nap, statistic: "average" }),
      ...R("hrv", numberOr(data.AvgHRV) || undefined, "ms", period, id, { ...nap, method: "rmssd", statistic: "average" }),
    ];
  },
  recovery(data, at, username, R) {
    // Balance is Suunto's "resources" (0–1): the body-battery kind of score, 0–100 here.
    const state = STRESS_STATES[numberOr(data.StressState) ?? 0];
    return R("body_battery", percentOf(numberOr(data.Balance)), "score", { at }, `${username}/247-recovery@${at}`, { suunto_metric: "resources", ...(state ? { stress_state: state } : {}) });
  },
};

/** The fields a value of unknown shape has, for a reason (at most ten). */
const shapeOf = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? `fields ${Object.keys(v).slice(0, 10).join(", ") || "none"}` : v === null ? "null" : typeof v);

/**
 * The samples of one 24/7 notification for one linked user → readings; a sample's record id names
 * the user, the type and its instant (a sleep: its SleepId). `unread`: why samples gave no reading
 * (not a list, no sample with a timestamp and entryData, entryData without a value the type reads).
 */
export function mapSuunto247(device: LinkedDevice, username: string, type: Suunto247Type, samples: unknown): { readings: Reading[]; unread?: string } {
  if (!Array.isArray(samples)) return { readings: [], unread: `samples is not a list (${shapeOf(samples)})` };
  if (!samples.length) return { readings: [], unread: "samples is an empty list" };
  const emit: Emit = (metric, value, unit, time, recordId, attributes) =>
    value === undefined ? [] : [reading(SUUNTO_KIND, device, { metric, value, unit, time, sourceRecordId: recordId, ...(attributes ? { attributes } : {}) })];
  const dated = samples.filter((raw) => typeof obj(raw).timestamp === "string" && !Number.isNaN(Date.parse(obj(raw).timestamp as string)));
  const readings = dated.flatMap((raw) => SAMPLE_MAPPERS[type](obj(obj(raw).entryData), obj(raw).timestamp as string, username, emit));
  if (readings.length) return { readings };
  if (!dated.length) return { readings: [], unread: `none of the ${samples.length} samples has an ISO 8601 timestamp (the first has ${shapeOf(samples[0])})` };
  return { readings: [], unread: `none of the ${dated.length} samples' entryData holds a value the ${type} mapping reads (the first entryData has ${shapeOf(obj(dated[0]).entryData)})` };
}
