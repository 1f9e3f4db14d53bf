// Health Connect records → readings. Records come as the companion app reads them from the
// Jetpack client (androidx.health.connect.client.records): a unit-class field by any accessor its
// class exposes (weight.inKilograms or inPounds, level.inMilligramsPerDeciliter or
// inMillimolesPerLiter, …; sdk.ts), converted by UCUM in the device core; a constant by value or
// by name (stage 5 or STAGE_TYPE_DEEP). What the SDK requires and a record lacks (a WeightRecord
// without weight, a sample without beatsPerMinute, a stage without its times) is refused naming
// the field, never stored as a reading without a value. A record's readings carry its key in their
// source id, so a newer version's readings meet the older version's Observations (upload.ts).
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading, ReadingTime } from "../../reading";
import { BLOOD_GLUCOSE, constantValue, ENERGY, type FieldProblem, LENGTH, MASS, PERCENTAGE, PRESSURE, SLEEP_STAGES, TEMPERATURE, type UnitClass, unitValue } from "./sdk";

export const HEALTH_CONNECT_KIND = "android_health_app";

type Fields = Readonly<Record<string, unknown>>;

/** A record's identity for readings: `<clientRecordId or id>@v<version>`. */
export interface RecordRef {
  readonly device: LinkedDevice;
  readonly sourceId: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The record's path in the upload (`records[3]`), for the fields a problem names. */
  readonly path: string;
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** SleepSessionRecord stages by value: 4 light, 5 deep, 6 REM, 2 sleeping (unspecified); 0, 1, 3, 7 are not sleep. */
const SLEEP_STAGE: Readonly<Record<number, string>> = { 2: "sleep", 4: "sleep_light", 5: "sleep_deep", 6: "sleep_rem" };

/** Where a record type's value is: a unit-class field, or a plain number in a fixed unit. */
type Source = { readonly field: string; readonly unit: UnitClass } | { readonly field: string; readonly ucum: string };

interface Rule {
  readonly metric: string;
  readonly source: Source;
  readonly attributes?: Readonly<Record<string, string>>;
}

/** Records measured at one `time`. */
const INSTANT: Readonly<Record<string, Rule>> = {
  WeightRecord: { metric: "weight", source: { field: "weight", unit: MASS } },
  HeightRecord: { metric: "height", source: { field: "height", unit: LENGTH } },
  OxygenSaturationRecord: { metric: "spo2", source: { field: "percentage", unit: PERCENTAGE } },
  RestingHeartRateRecord: { metric: "resting_heart_rate", source: { field: "beatsPerMinute", ucum: "/min" } },
  HeartRateVariabilityRmssdRecord: { metric: "hrv", source: { field: "heartRateVariabilityMillis", ucum: "ms" }, attributes: { method: "rmssd" } },
  RespiratoryRateRecord: { metric: "respiratory_rate", source: { field: "rate", ucum: "/min" } },
  BodyTemperatureRecord: { metric: "body_temperature", source: { field: "temperature", unit: TEMPERATURE } },
  BloodGlucoseRecord: { metric: "blood_glucose", source: { field: "level", unit: BLOOD_GLUCOSE } },
};

/** Records over `startTime`–`endTime`. */
const INTERVAL: Readonly<Record<string, Rule>> = {
  StepsRecord: { metric: "steps", source: { field: "count", ucum: "{steps}" } },
  DistanceRecord: { metric: "distance", source: { field: "distance", unit: LENGTH } },
  ActiveCaloriesBurnedRecord: { metric: "calories", source: { field: "energy", unit: ENERGY } },
};

type Measured = { value: number; ucum: string } | { problem: FieldProblem };

/** A record's value where `source` says it is, or the problem naming the field. */
function measure(r: Fields, source: Source, path: string): Measured {
  const at = `${path}.${source.field}`;
  const raw = r[source.field];
  if ("unit" in source) return raw === undefined || raw === null ? { problem: { path: at, message: `is required (a ${source.unit.name})` } } : unitValue(raw, source.unit, at);
  if (typeof raw !== "number" || !Number.isFinite(raw)) return { problem: { path: at, message: "is required (a finite number)" } };
  return { value: raw, ucum: source.ucum };
}

export const HEALTH_CONNECT_TYPES = ["HeartRateRecord", "BloodPressureRecord", "SleepSessionRecord", ...Object.keys(INSTANT), ...Object.keys(INTERVAL)];

/** The instant or interval a record covers (its end for the 30-day window). */
export function recordEnd(r: Fields): string | undefined {
  return str(r.time) ?? str(r.endTime);
}

const minutesBetween = (start: string, end: string) => (Date.parse(end) - Date.parse(start)) / 60_000;

export type MappedRecord = { readings: Reading[] } | { skipped: string } | { errors: FieldProblem[] };

export function mapHealthConnectRecord(type: string, r: Fields, ref: RecordRef): MappedRecord {
  const make = (metric: string, value: number | undefined, unit: string, time: ReadingTime, suffix = "", extra?: Readonly<Record<string, string>>): Reading => ({
    patientId: ref.device.patientId,
    deviceId: ref.device.deviceId,
    platform: HEALTH_CONNECT_KIND,
    metric,
    unit,
    time,
    sourceRecordId: `${ref.sourceId}${suffix}`,
    attributes: { ...ref.attributes, ...extra },
    ...(value === undefined ? { absentReason: "error" as const } : { value }),
  });
  const one = (rule: Rule, time: ReadingTime): MappedRecord => {
    const m = measure(r, rule.source, ref.path);
    return "problem" in m ? { errors: [m.problem] } : { readings: [make(rule.metric, m.value, m.ucum, time, "", rule.attributes)] };
  };
  const instant = INSTANT[type];
  if (instant) return one(instant, { at: String(r.time) });
  const interval = INTERVAL[type];
  if (interval) return one(interval, { start: String(r.startTime), end: String(r.endTime) });
  if (type === "HeartRateRecord") return heartRate(r, ref, make);
  if (type === "BloodPressureRecord") return bloodPressure(r, ref);
  if (type === "SleepSessionRecord") return sleepSession(r, ref, make);
  return { skipped: `Health Connect record type ${type} is not imported` };
}

type Make = (metric: string, value: number | undefined, unit: string, time: ReadingTime, suffix?: string) => Reading;
const listOf = (v: unknown): Fields[] => (Array.isArray(v) ? (v as Fields[]) : []);

function heartRate(r: Fields, ref: RecordRef, make: Make): MappedRecord {
  const errors: FieldProblem[] = [];
  const readings = listOf(r.samples).flatMap((s, i) => {
    const path = `${ref.path}.samples[${i}]`;
    const time = str(s?.time);
    const m = measure(s ?? {}, { field: "beatsPerMinute", ucum: "/min" }, path);
    if (!time) errors.push({ path: `${path}.time`, message: "is required (an ISO 8601 instant)" });
    if ("problem" in m) errors.push(m.problem);
    return time && !("problem" in m) ? [make("heart_rate", m.value, m.ucum, { at: time }, `@${time}`)] : [];
  });
  if (errors.length) return { errors };
  return readings.length ? { readings } : { skipped: "HeartRateRecord without samples" };
}

function bloodPressure(r: Fields, ref: RecordRef): MappedRecord {
  const systolic = measure(r, { field: "systolic", unit: PRESSURE }, ref.path);
  const diastolic = measure(r, { field: "diastolic", unit: PRESSURE }, ref.path);
  const errors = [systolic, diastolic].flatMap((m) => ("problem" in m ? [m.problem] : []));
  if ("problem" in systolic || "problem" in diastolic) return { errors };
  const extra = { ...ref.attributes, ...(r.bodyPosition !== undefined ? { body_position: String(r.bodyPosition) } : {}), ...(r.measurementLocation !== undefined ? { measurement_location: String(r.measurementLocation) } : {}) };
  const panel: Reading = {
    patientId: ref.device.patientId,
    deviceId: ref.device.deviceId,
    platform: HEALTH_CONNECT_KIND,
    metric: "blood_pressure",
    unit: "mm[Hg]",
    components: [
      { metric: "systolic", unit: systolic.ucum, value: systolic.value },
      { metric: "diastolic", unit: diastolic.ucum, value: diastolic.value },
    ],
    time: { at: String(r.time) },
    sourceRecordId: ref.sourceId,
    attributes: extra,
  };
  return { readings: [panel] };
}

function sleepSession(r: Fields, ref: RecordRef, make: Make): MappedRecord {
  const start = String(r.startTime);
  const end = String(r.endTime);
  const stages = listOf(r.stages);
  const totals = new Map<string, number>();
  const errors: FieldProblem[] = [];
  for (const [i, s] of stages.entries()) {
    const path = `${ref.path}.stages[${i}]`;
    const stage = constantValue(s?.stage, SLEEP_STAGES, `${path}.stage`);
    const [from, to] = [str(s?.startTime), str(s?.endTime)];
    if ("problem" in stage) errors.push(stage.problem);
    if (!from || Number.isNaN(Date.parse(from))) errors.push({ path: `${path}.startTime`, message: "is required (an ISO 8601 instant)" });
    if (!to || Number.isNaN(Date.parse(to))) errors.push({ path: `${path}.endTime`, message: "is required (an ISO 8601 instant)" });
    const metric = "value" in stage ? SLEEP_STAGE[stage.value] : undefined;
    if (metric && from && to) totals.set(metric, (totals.get(metric) ?? 0) + minutesBetween(from, to));
  }
  if (errors.length) return { errors };
  // The night's sleep: the asleep stages' sum when stages are given, else the whole session.
  const asleep = stages.length ? [...totals.values()].reduce((a, b) => a + b, 0) : minutesBetween(start, end);
  const period = { start, end };
  const readings = [make("sleep", Number.isFinite(asleep) ? asleep : undefined, "min", period, "#sleep")];
  for (const [metric, minutes] of totals) if (metric !== "sleep") readings.push(make(metric, minutes, "min", period, `#${metric}`));
  return { readings };
}
