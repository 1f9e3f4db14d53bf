// WHOOP API v2 records → readings (pure). Energy stays in kJ (normalised downstream), HRV is
// RMSSD, and a record whose `score_state` is not SCORED (PENDING_SCORE, UNSCORABLE) gives
// absent readings, never a number; a cycle still running (`end: null`) is not a reading yet.
// Record ids: `cycle-<id>` for a cycle, `recovery-<sleep UUID>` for a recovery, the UUID for a
// sleep or workout, so each delete retracts its own record's readings only; an unscored record's
// absent readings add `#<score state>`, so the scored values that follow are not their duplicates.
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading, ReadingTime } from "../../reading";
import { numberOr, reading } from "../readings";

export const WHOOP_KIND = "recovery_strap";
type Doc = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Doc => (v && typeof v === "object" ? (v as Doc) : {});

interface Field {
  readonly metric: string;
  readonly unit: string;
  readonly value: (score: Doc) => number | undefined;
  readonly attributes?: Readonly<Record<string, string>>;
}

/** The states a record is not scored in yet (or cannot be): their absent readings have ids of their own. */
export const UNSCORED_STATES = ["PENDING_SCORE", "UNSCORABLE"] as const;

/**
 * The id of a record's readings in a score state: the record's id once SCORED, `<id>#<state>`
 * before. WHOOP sends `*.updated` when a record is created (often PENDING_SCORE) and again when
 * it is scored: under one id the scored values would meet the absent readings and be dropped as
 * their duplicates.
 */
export const stateRecordId = (id: string, state: string) => (state === "SCORED" ? id : `${id}#${state || "UNKNOWN"}`);

/** The fields of a scored record, or one absent reading per field when unscored. */
function scored(device: LinkedDevice, doc: Doc, recordId: string, time: ReadingTime, fields: readonly Field[], extra?: Record<string, string>): Reading[] {
  const state = String(doc.score_state ?? "");
  const score = state === "SCORED" ? obj(doc.score) : undefined;
  const id = stateRecordId(recordId, state);
  return fields.map((f) =>
    reading(WHOOP_KIND, device, {
      metric: f.metric,
      value: score ? f.value(score) : undefined,
      unit: f.unit,
      time,
      sourceRecordId: id,
      absentReason: "not-performed",
      attributes: { ...f.attributes, ...extra, ...(score ? {} : { score_state: state || "UNKNOWN" }) },
    }),
  );
}

const rmssd = { method: "rmssd" };
const n = (key: string) => (s: Doc) => numberOr(s[key]);

const RECOVERY: readonly Field[] = [
  // WHOOP gives it as a percentage (0-100), which is the score's own scale: "%" would be converted to 0.44 of a score.
  { metric: "recovery_score", unit: "score", value: n("recovery_score") },
  { metric: "resting_heart_rate", unit: "bpm", value: n("resting_heart_rate") },
  { metric: "hrv", unit: "ms", value: n("hrv_rmssd_milli"), attributes: rmssd },
  { metric: "spo2", unit: "%", value: n("spo2_percentage") },
  { metric: "skin_temperature", unit: "Cel", value: n("skin_temp_celsius") },
];

const CYCLE: readonly Field[] = [
  { metric: "strain", unit: "score", value: n("strain") },
  { metric: "calories", unit: "kJ", value: n("kilojoule"), attributes: { kind: "total" } },
  { metric: "heart_rate", unit: "bpm", value: n("average_heart_rate"), attributes: { statistic: "average" } },
];

function asleepMillis(score: Doc): number | undefined {
  const stages = obj(score.stage_summary);
  const parts = ["total_light_sleep_time_milli", "total_slow_wave_sleep_time_milli", "total_rem_sleep_time_milli"].map((k) => numberOr(stages[k]));
  return parts.every((p) => p !== undefined) ? parts.reduce((a, b) => (a ?? 0) + (b ?? 0), 0) : undefined;
}

const SLEEP: readonly Field[] = [
  { metric: "sleep", unit: "ms", value: asleepMillis },
  { metric: "sleep_performance", unit: "%", value: n("sleep_performance_percentage") },
  { metric: "sleep_efficiency", unit: "%", value: n("sleep_efficiency_percentage") },
  { metric: "respiratory_rate", unit: "/min", value: n("respiratory_rate") },
];

const WORKOUT: readonly Field[] = [
  { metric: "strain", unit: "score", value: n("strain") },
  { metric: "calories", unit: "kJ", value: n("kilojoule"), attributes: { kind: "active" } },
  { metric: "heart_rate", unit: "bpm", value: n("average_heart_rate"), attributes: { statistic: "average" } },
  { metric: "distance", unit: "m", value: n("distance_meter") },
];

/**
 * A recovery is its own record, apart from its cycle's and its sleep's: WHOOP v2 names it by the
 * sleep it was scored from (every recovery has one sleep, and `recovery.deleted` carries that UUID).
 */
export const recoveryRecordId = (sleepId: string) => `recovery-${sleepId}`;

const interval = (doc: Doc): ReadingTime | undefined =>
  typeof doc.start === "string" && typeof doc.end === "string" ? { start: doc.start, end: doc.end } : undefined;

export const whoopMappers: Readonly<Record<string, (device: LinkedDevice, doc: Doc) => Reading[]>> = {
  recovery: (device, doc) => scored(device, doc, recoveryRecordId(String(doc.sleep_id)), { at: String(doc.updated_at ?? doc.created_at) }, RECOVERY),
  cycle: (device, doc) => {
    const time = interval(doc);
    return time ? scored(device, doc, `cycle-${doc.id}`, time, CYCLE) : [];
  },
  sleep: (device, doc) => {
    const time = interval(doc);
    return time ? scored(device, doc, String(doc.id), time, SLEEP, doc.nap === true ? { nap: "true" } : undefined) : [];
  },
  workout: (device, doc) => {
    const time = interval(doc);
    const sport = typeof doc.sport_name === "string" ? { activity_type: doc.sport_name } : undefined;
    return time ? scored(device, doc, String(doc.id), time, WORKOUT, sport) : [];
  },
};

export function mapWhoop(device: LinkedDevice, dataType: string, doc: unknown): Reading[] {
  const mapper = Object.hasOwn(whoopMappers, dataType) ? whoopMappers[dataType] : undefined;
  return mapper ? mapper(device, obj(doc)) : [];
}
