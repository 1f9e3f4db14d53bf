// Oura API v2 documents → readings (pure). Scores are Observations of their own; HRV is RMSSD
// (reference C3); series items may be null (no sample, left out); a null score is unscored.
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading } from "../../reading";
import { dayInterval, numberOr, reading } from "../readings";

export const OURA_KIND = "smart_ring";
const R = (device: LinkedDevice, input: Parameters<typeof reading>[2]) => reading(OURA_KIND, device, input);

type Doc = Readonly<Record<string, unknown>>;
const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const obj = (v: unknown): Doc => (v && typeof v === "object" ? (v as Doc) : {});

function score(device: LinkedDevice, doc: Doc, metric: string): Reading {
  return R(device, { metric, value: numberOr(doc.score), unit: "score", time: dayInterval(String(doc.day)), sourceRecordId: String(doc.id), absentReason: "not-performed" });
}

/** A 5-minute series (`{interval, items, timestamp}`) → one reading per non-null item. */
function series(device: LinkedDevice, recordId: string, raw: unknown, metric: string, unit: string, attributes?: Record<string, string>): Reading[] {
  const s = obj(raw);
  const start = Date.parse(String(s.timestamp));
  const interval = numberOr(s.interval);
  if (!Number.isFinite(start) || interval === undefined || !Array.isArray(s.items)) return [];
  return s.items.flatMap((item, i) => {
    const value = numberOr(item);
    if (value === undefined) return [];
    const at = new Date(start + i * interval * 1000).toISOString();
    return [R(device, { metric, value, unit, time: { at }, sourceRecordId: `${recordId}@${at}`, attributes })];
  });
}

const rmssd = { method: "rmssd" };

export const ouraMappers: Readonly<Record<string, (device: LinkedDevice, doc: Doc) => Reading[]>> = {
  daily_sleep: (device, doc) => [score(device, doc, "sleep_score")],
  daily_readiness: (device, doc) => {
    const out = [score(device, doc, "readiness_score")];
    // The ring's skin temperature against the wearer's baseline, in °C: the device core's skin_temperature_delta.
    const deviation = numberOr(doc.temperature_deviation);
    if (deviation !== undefined)
      out.push(R(device, { metric: "skin_temperature_delta", value: deviation, unit: "Cel", time: dayInterval(String(doc.day)), sourceRecordId: String(doc.id) }));
    return out;
  },
  daily_activity: (device, doc) => {
    const time = dayInterval(String(doc.day));
    const id = String(doc.id);
    return [
      score(device, doc, "activity_score"),
      R(device, { metric: "steps", value: numberOr(doc.steps), unit: "steps", time, sourceRecordId: id }),
      R(device, { metric: "calories", value: numberOr(doc.active_calories), unit: "kcal", time, sourceRecordId: id, attributes: { kind: "active" } }),
    ];
  },
  daily_spo2: (device, doc) => [
    R(device, { metric: "spo2", value: numberOr(obj(doc.spo2_percentage).average), unit: "%", time: dayInterval(String(doc.day)), sourceRecordId: String(doc.id) }),
  ],
  sleep: (device, doc) => {
    const id = String(doc.id);
    const time = { start: String(doc.bedtime_start), end: String(doc.bedtime_end) };
    const stage = str(doc.type) ? { sleep_type: String(doc.type) } : undefined;
    return [
      R(device, { metric: "sleep", value: numberOr(doc.total_sleep_duration), unit: "s", time, sourceRecordId: id, attributes: stage }),
      R(device, { metric: "sleep_efficiency", value: numberOr(doc.efficiency), unit: "%", time, sourceRecordId: id }),
      R(device, { metric: "resting_heart_rate", value: numberOr(doc.lowest_heart_rate), unit: "bpm", time, sourceRecordId: id }),
      // The night's average beside the night's samples (below): an aggregate, its own vitals series.
      R(device, { metric: "hrv", value: numberOr(doc.average_hrv), unit: "ms", time, sourceRecordId: id, attributes: { ...rmssd, statistic: "average" } }),
      R(device, { metric: "respiratory_rate", value: numberOr(doc.average_breath), unit: "/min", time, sourceRecordId: id }),
      ...series(device, id, doc.heart_rate, "heart_rate", "bpm"),
      ...series(device, id, doc.hrv, "hrv", "ms", rmssd),
    ];
  },
  // Samples have no id: the instant, scoped to the device, or two patients' samples at the same instant would be one.
  heartrate: (device, doc) => [
    R(device, { metric: "heart_rate", value: numberOr(doc.bpm), unit: "bpm", time: { at: String(doc.timestamp) }, sourceRecordId: `${device.deviceId}@${String(doc.timestamp)}`, attributes: str(doc.source) ? { source: String(doc.source) } : undefined }),
  ],
};

/** Readings of one Oura document of `dataType`; unknown types give none. */
export function mapOura(device: LinkedDevice, dataType: string, doc: unknown): Reading[] {
  const mapper = Object.hasOwn(ouraMappers, dataType) ? ouraMappers[dataType] : undefined;
  return mapper ? mapper(device, obj(doc)) : [];
}
