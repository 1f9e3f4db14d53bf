// Garmin Health API summaries → readings (pure). Times are epoch seconds plus the user's
// offset; per-sample maps are offsets in seconds from the summary start. Stress and body
// battery sentinels (-1 off wrist, -2 motion, -3 too little data, -4 recovering, -5
// unidentified) are never values: they become absent readings with the sentinel kept.
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading, ReadingTime } from "../../reading";
import { isoWithOffset, numberOr, reading } from "../readings";

export const GARMIN_KIND = "sports_watch";
type Doc = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Doc => (v && typeof v === "object" ? (v as Doc) : {});
const R = (device: LinkedDevice, input: Parameters<typeof reading>[2]) => reading(GARMIN_KIND, device, input);

const STRESS_SENTINELS: Readonly<Record<string, string>> = { "-1": "off_wrist", "-2": "large_motion", "-3": "not_enough_data", "-4": "recovering_from_exercise", "-5": "unidentified" };

function window(doc: Doc): { start: number; offset: number; time: ReadingTime } {
  const start = numberOr(doc.startTimeInSeconds) ?? 0;
  const offset = numberOr(doc.startTimeOffsetInSeconds) ?? 0;
  const duration = numberOr(doc.durationInSeconds) ?? 0;
  return { start, offset, time: { start: isoWithOffset(start, offset), end: isoWithOffset(start + duration, offset) } };
}

/** `{"<offset s>": value}` → one reading per sample; `sentinels` makes negative values absent. */
function samples(device: LinkedDevice, doc: Doc, field: string, metric: string, unit: string, sentinels = false): Reading[] {
  const { start, offset } = window(doc);
  const id = String(doc.summaryId);
  return Object.entries(obj(doc[field])).map(([at, raw]) => {
    const value = numberOr(raw);
    const sentinel = sentinels && value !== undefined && value < 0;
    const time = { at: isoWithOffset(start + Number(at), offset) };
    return R(device, {
      metric,
      value: sentinel ? undefined : value,
      unit,
      time,
      sourceRecordId: `${id}@${at}`,
      absentReason: sentinel ? (value === -1 ? "not-performed" : "error") : "unknown",
      ...(sentinel ? { attributes: { garmin_sentinel: STRESS_SENTINELS[String(value)] ?? String(value) } } : {}),
    });
  });
}

/** A daily level (stress average, body battery) that may itself be a sentinel. */
function level(device: LinkedDevice, metric: string, raw: unknown, time: ReadingTime, id: string, attributes?: Record<string, string>): Reading {
  const value = numberOr(raw);
  const sentinel = value !== undefined && value < 0;
  return R(device, { metric, value: sentinel ? undefined : value, unit: "score", time, sourceRecordId: id, absentReason: "error", attributes: { ...attributes, ...(sentinel ? { garmin_sentinel: STRESS_SENTINELS[String(value)] ?? String(value) } : {}) } });
}

export const garminMappers: Readonly<Record<string, (device: LinkedDevice, doc: Doc) => Reading[]>> = {
  dailies: (device, doc) => {
    const { time } = window(doc);
    const id = String(doc.summaryId);
    const moderate = numberOr(doc.moderateIntensityDurationInSeconds);
    const vigorous = numberOr(doc.vigorousIntensityDurationInSeconds);
    return [
      R(device, { metric: "steps", value: numberOr(doc.steps), unit: "steps", time, sourceRecordId: id }),
      R(device, { metric: "distance", value: numberOr(doc.distanceInMeters), unit: "m", time, sourceRecordId: id }),
      R(device, { metric: "calories", value: numberOr(doc.activeKilocalories), unit: "kcal", time, sourceRecordId: id, attributes: { kind: "active" } }),
      R(device, { metric: "active_minutes", value: moderate !== undefined && vigorous !== undefined ? (moderate + vigorous) / 60 : undefined, unit: "min", time, sourceRecordId: id }),
      R(device, { metric: "resting_heart_rate", value: numberOr(doc.restingHeartRateInBeatsPerMinute), unit: "bpm", time, sourceRecordId: id }),
      R(device, { metric: "heart_rate", value: numberOr(doc.averageHeartRateInBeatsPerMinute), unit: "bpm", time, sourceRecordId: id, attributes: { statistic: "average" } }),
      ...(doc.averageSpo2 !== undefined ? [R(device, { metric: "spo2", value: numberOr(doc.averageSpo2), unit: "%", time, sourceRecordId: id, attributes: { statistic: "average" } })] : []),
      level(device, "stress", doc.averageStressLevel, time, id, { statistic: "average" }),
      level(device, "body_battery", doc.bodyBatteryHighestValue, time, `${id}:highest`, { statistic: "maximum" }),
      level(device, "body_battery", doc.bodyBatteryLowestValue, time, `${id}:lowest`, { statistic: "minimum" }),
      ...samples(device, doc, "timeOffsetHeartRateSamples", "heart_rate", "bpm"),
    ];
  },
  stressDetails: (device, doc) => [
    ...samples(device, doc, "timeOffsetStressLevelValues", "stress", "score", true),
    ...samples(device, doc, "timeOffsetBodyBatteryValues", "body_battery", "score", true),
  ],
  sleeps: (device, doc) => {
    const { time } = window(doc);
    const id = String(doc.summaryId);
    const parts = ["deepSleepDurationInSeconds", "lightSleepDurationInSeconds", "remSleepInSeconds"].map((k) => numberOr(doc[k]) ?? 0);
    const validation = typeof doc.validation === "string" ? { validation: doc.validation } : undefined;
    return [
      R(device, { metric: "sleep", value: parts.reduce((a, b) => a + b, 0) || numberOr(doc.durationInSeconds), unit: "s", time, sourceRecordId: id, attributes: validation }),
      ...(obj(doc.overallSleepScore).value !== undefined ? [R(device, { metric: "sleep_score", value: numberOr(obj(doc.overallSleepScore).value), unit: "score", time, sourceRecordId: id })] : []),
      ...samples(device, doc, "timeOffsetSleepSpo2", "spo2", "%"),
      ...samples(device, doc, "timeOffsetSleepRespiration", "respiratory_rate", "/min"),
    ];
  },
  hrv: (device, doc) => {
    const { time } = window(doc);
    return [
      R(device, { metric: "hrv", value: numberOr(doc.lastNightAvg), unit: "ms", time, sourceRecordId: String(doc.summaryId), attributes: { method: "rmssd", statistic: "average" } }),
    ];
  },
  pulseox: (device, doc) => samples(device, doc, "timeOffsetSpo2Values", "spo2", "%"),
  allDayRespiration: (device, doc) => samples(device, doc, "timeOffsetEpochToBreaths", "respiratory_rate", "/min"),
};

export function mapGarmin(device: LinkedDevice, summaryType: string, doc: unknown): Reading[] {
  const mapper = Object.hasOwn(garminMappers, summaryType) ? garminMappers[summaryType] : undefined;
  return mapper ? mapper(device, obj(doc)) : [];
}
