// Polar AccessLink v3 documents → readings (pure). Exercise start times are device-local
// without a zone, with `start_time_utc_offset` in minutes; durations are ISO 8601.
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading } from "../../reading";
import { localWithOffsetMinutes, numberOr, reading } from "../readings";

export const POLAR_KIND = "training_platform";
type Doc = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Doc => (v && typeof v === "object" ? (v as Doc) : {});
const R = (device: LinkedDevice, input: Parameters<typeof reading>[2]) => reading(POLAR_KIND, device, input);

/** PT1H2M3.5S → seconds (days and larger units do not occur in exercise durations). */
export function isoDurationSeconds(text: unknown): number | undefined {
  const m = typeof text === "string" ? text.match(/^PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/) : null;
  if (!m) return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

export const polarMappers: Readonly<Record<string, (device: LinkedDevice, doc: Doc) => Reading[]>> = {
  exercise: (device, doc) => {
    const offset = numberOr(doc.start_time_utc_offset) ?? 0;
    const start = localWithOffsetMinutes(String(doc.start_time), offset);
    const seconds = isoDurationSeconds(doc.duration) ?? 0;
    const end = localWithOffsetMinutes(new Date(Date.parse(`${String(doc.start_time).slice(0, 19)}Z`) + seconds * 1000).toISOString().slice(0, 19), offset);
    const time = { start, end };
    const id = String(doc.id);
    const attributes = typeof doc.sport === "string" ? { activity_type: doc.sport } : undefined;
    return [
      R(device, { metric: "calories", value: numberOr(doc.calories), unit: "kcal", time, sourceRecordId: id, attributes }),
      R(device, { metric: "distance", value: numberOr(doc.distance), unit: "m", time, sourceRecordId: id, attributes }),
      R(device, { metric: "heart_rate", value: numberOr(obj(doc.heart_rate).average), unit: "bpm", time, sourceRecordId: id, attributes: { ...attributes, statistic: "average" } }),
      R(device, { metric: "active_minutes", value: seconds / 60, unit: "min", time, sourceRecordId: id, attributes }),
    ];
  },
  sleep: (device, doc) => {
    const time = { start: String(doc.sleep_start_time), end: String(doc.sleep_end_time) };
    // A night has no id: its date, scoped to the device, or two patients' nights of the same date would be one record.
    const id = `${device.deviceId}/sleep-${String(doc.date)}`;
    const parts = ["light_sleep", "deep_sleep", "rem_sleep"].map((k) => numberOr(doc[k]));
    return [
      R(device, { metric: "sleep", value: parts.every((p) => p !== undefined) ? parts.reduce((a, b) => (a ?? 0) + (b ?? 0), 0) : undefined, unit: "s", time, sourceRecordId: id }),
      R(device, { metric: "sleep_score", value: numberOr(doc.sleep_score), unit: "score", time, sourceRecordId: id, absentReason: "not-performed" }),
    ];
  },
};

export function mapPolar(device: LinkedDevice, dataType: string, doc: unknown): Reading[] {
  const mapper = Object.hasOwn(polarMappers, dataType) ? polarMappers[dataType] : undefined;
  return mapper ? mapper(device, obj(doc)) : [];
}
