// Suunto workouts → readings (pure). `startTime` is epoch ms, `totalTime` seconds, and
// `timeOffsetInMinutes` the local offset; the user is named by username, not an id.
import type { LinkedDevice } from "../../features/devices/platform-adapter";
import type { Reading } from "../../features/devices/reading";
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
