// Health Connect records → readings. Records come as the companion app reads them from the
// Jetpack client (androidx.health.connect.client.records), with the units' own accessors
// (Mass.inKilograms, Pressure.inMillimetersOfMercury, Percentage.value 0–100, Length.inMeters,
// Energy.inKilocalories, Temperature.inCelsius, BloodGlucose.inMilligramsPerDeciliter). A
// record's readings carry its key and version in their source id, so a newer version's readings
// are new Observations and the older version's are retracted (upload.ts).
import type { LinkedDevice } from "../../features/devices/platform-adapter";
import type { Reading, ReadingTime } from "../../features/devices/reading";
import { reading } from "../readings";

export const HEALTH_CONNECT_KIND = "android_health_app";

type Fields = Readonly<Record<string, unknown>>;

/** A record's identity for readings: `<clientRecordId or id>@v<version>`. */
export interface RecordRef {
  readonly device: LinkedDevice;
  readonly sourceId: string;
  readonly attributes: Readonly<Record<string, string>>;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const unitValue = (v: unknown, accessor: string): number | undefined => num((v as Fields | undefined)?.[accessor]);
const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** SleepSessionRecord.STAGE_TYPE_*: 4 light, 5 deep, 6 REM, 2 sleeping (unspecified); 0, 1, 3, 7 are not sleep. */
const SLEEP_STAGE: Readonly<Record<number, string>> = { 2: "sleep", 4: "sleep_light", 5: "sleep_deep", 6: "sleep_rem" };

interface InstantRule {
  readonly metric: string;
  readonly unit: string;
  readonly value: (r: Fields) => number | undefined;
  readonly attributes?: Readonly<Record<string, string>>;
}

/** Records measured at one `time`. */
const INSTANT: Readonly<Record<string, InstantRule>> = {
  WeightRecord: { metric: "weight", unit: "kg", value: (r) => unitValue(r.weight, "inKilograms") },
  OxygenSaturationRecord: { metric: "spo2", unit: "%", value: (r) => unitValue(r.percentage, "value") },
  RestingHeartRateRecord: { metric: "resting_heart_rate", unit: "/min", value: (r) => num(r.beatsPerMinute) },
  HeartRateVariabilityRmssdRecord: { metric: "hrv", unit: "ms", value: (r) => num(r.heartRateVariabilityMillis), attributes: { method: "rmssd" } },
  RespiratoryRateRecord: { metric: "respiratory_rate", unit: "/min", value: (r) => num(r.rate) },
  BodyTemperatureRecord: { metric: "body_temperature", unit: "Cel", value: (r) => unitValue(r.temperature, "inCelsius") },
  BloodGlucoseRecord: { metric: "blood_glucose", unit: "mg/dL", value: (r) => unitValue(r.level, "inMilligramsPerDeciliter") },
};

/** Records over `startTime`–`endTime`. */
const INTERVAL: Readonly<Record<string, InstantRule>> = {
  StepsRecord: { metric: "steps", unit: "{steps}", value: (r) => num(r.count) },
  DistanceRecord: { metric: "distance", unit: "m", value: (r) => unitValue(r.distance, "inMeters") },
  ActiveCaloriesBurnedRecord: { metric: "calories", unit: "kcal", value: (r) => unitValue(r.energy, "inKilocalories") },
};

export const HEALTH_CONNECT_TYPES = ["HeartRateRecord", "BloodPressureRecord", "SleepSessionRecord", ...Object.keys(INSTANT), ...Object.keys(INTERVAL)];

/** The instant or interval a record covers (its end for the 30-day window). */
export function recordEnd(r: Fields): string | undefined {
  return str(r.time) ?? str(r.endTime);
}

const minutesBetween = (start: string, end: string) => (Date.parse(end) - Date.parse(start)) / 60_000;

export function mapHealthConnectRecord(type: string, r: Fields, ref: RecordRef): { readings: Reading[] } | { skipped: string } {
  const make = (metric: string, value: number | undefined, unit: string, time: ReadingTime, suffix = "", extra?: Readonly<Record<string, string>>) =>
    reading(HEALTH_CONNECT_KIND, ref.device, { metric, value, unit, time, sourceRecordId: `${ref.sourceId}${suffix}`, absentReason: "error", attributes: { ...ref.attributes, ...extra } });
  const instant = INSTANT[type];
  if (instant) return { readings: [make(instant.metric, instant.value(r), instant.unit, { at: String(r.time) }, "", instant.attributes)] };
  const interval = INTERVAL[type];
  if (interval) return { readings: [make(interval.metric, interval.value(r), interval.unit, { start: String(r.startTime), end: String(r.endTime) })] };
  if (type === "HeartRateRecord") {
    const samples = Array.isArray(r.samples) ? (r.samples as Fields[]) : [];
    const readings = samples.flatMap((s) => (str(s.time) ? [make("heart_rate", num(s.beatsPerMinute), "/min", { at: String(s.time) }, `@${s.time}`)] : []));
    return readings.length ? { readings } : { skipped: "HeartRateRecord without samples" };
  }
  if (type === "BloodPressureRecord") {
    const systolic = unitValue(r.systolic, "inMillimetersOfMercury");
    const diastolic = unitValue(r.diastolic, "inMillimetersOfMercury");
    const extra = { ...ref.attributes, ...(r.bodyPosition !== undefined ? { body_position: String(r.bodyPosition) } : {}), ...(r.measurementLocation !== undefined ? { measurement_location: String(r.measurementLocation) } : {}) };
    const panel: Reading = {
      patientId: ref.device.patientId,
      deviceId: ref.device.deviceId,
      platform: HEALTH_CONNECT_KIND,
      metric: "blood_pressure",
      unit: "mmHg",
      components: [
        { metric: "systolic", unit: "mmHg", ...(systolic === undefined ? {} : { value: systolic }) },
        { metric: "diastolic", unit: "mmHg", ...(diastolic === undefined ? {} : { value: diastolic }) },
      ],
      time: { at: String(r.time) },
      sourceRecordId: ref.sourceId,
      attributes: extra,
    };
    return { readings: [panel] };
  }
  if (type === "SleepSessionRecord") {
    const start = String(r.startTime);
    const end = String(r.endTime);
    const stages = Array.isArray(r.stages) ? (r.stages as Fields[]) : [];
    const totals = new Map<string, number>();
    for (const s of stages) {
      const metric = SLEEP_STAGE[num(s.stage) ?? -1];
      if (metric && str(s.startTime) && str(s.endTime)) totals.set(metric, (totals.get(metric) ?? 0) + minutesBetween(String(s.startTime), String(s.endTime)));
    }
    // The night's sleep: the asleep stages' sum when stages are given, else the whole session.
    const asleep = stages.length ? [...totals.values()].reduce((a, b) => a + b, 0) : minutesBetween(start, end);
    const period = { start, end };
    const readings = [make("sleep", Number.isFinite(asleep) ? asleep : undefined, "min", period, "#sleep")];
    for (const [metric, minutes] of totals) if (metric !== "sleep") readings.push(make(metric, minutes, "min", period, `#${metric}`));
    return { readings };
  }
  return { skipped: `Health Connect record type ${type} is not imported` };
}
