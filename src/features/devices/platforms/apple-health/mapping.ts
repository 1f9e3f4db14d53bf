// HealthKit samples → readings, one mapping for the companion app's JSON batches and for the
// export.xml import (both carry HealthKit's own identifiers, units and values). What HealthKit
// says is kept: OxygenSaturation is a fraction (0.97, even where export.xml labels it "%"),
// mass may be lb, HeartRateVariabilitySDNN is SDNN (`hrv_sdnn`, LOINC 80404-7), never RMSSD.
// Blood pressure is read from its Correlation only: export.xml repeats the correlation's
// systolic and diastolic Records at top level (reference V11), and reading both would count it twice.
import type { LinkedDevice } from "../../platform-adapter";
import type { Reading, ReadingTime } from "../../reading";
import { reading } from "../readings";

export const APPLE_HEALTH_KIND = "ios_health_app";

/** One HealthKit sample as the companion app sends it, or as an export.xml Record/Correlation reads. */
export interface HealthKitSample {
  readonly type: string;
  /** HealthKit's sample UUID (companion app); export.xml has none, so the import derives a stable id. */
  readonly id: string;
  readonly value?: number | string;
  readonly unit?: string;
  readonly start: string;
  readonly end: string;
  readonly sourceName?: string;
  readonly device?: string;
  /** A correlation's samples (blood pressure). */
  readonly objects?: readonly HealthKitSample[];
}

export type Mapped = { readonly readings: readonly Reading[] } | { readonly skipped: string };

const Q = "HKQuantityTypeIdentifier";

/** HealthKit unit strings UCUM (or the device core's spellings) would not read as HealthKit means them. */
const UNIT_OF: Readonly<Record<string, string>> = { "count/min": "/min", "mmol<180.15588000005408>/L": "mmol/L", "mmol<180.1558800000541>/L": "mmol/L", degC: "Cel", degF: "[degF]", Cal: "kcal" };
const unitOf = (unit: string | undefined, fallback: string) => (unit ? (UNIT_OF[unit] ?? unit) : fallback);

interface QuantityRule {
  readonly metric: string;
  /** The unit when HealthKit's must be replaced (a fraction labelled "%", BMI's "count"). */
  readonly unit?: string;
  readonly defaultUnit: string;
  readonly attributes?: Readonly<Record<string, string>>;
}

const QUANTITIES: Readonly<Record<string, QuantityRule>> = {
  [`${Q}HeartRate`]: { metric: "heart_rate", defaultUnit: "/min" },
  [`${Q}RestingHeartRate`]: { metric: "resting_heart_rate", defaultUnit: "/min" },
  [`${Q}HeartRateVariabilitySDNN`]: { metric: "hrv_sdnn", defaultUnit: "ms", attributes: { method: "sdnn" } },
  [`${Q}OxygenSaturation`]: { metric: "spo2", unit: "fraction", defaultUnit: "fraction" },
  [`${Q}RespiratoryRate`]: { metric: "respiratory_rate", defaultUnit: "/min" },
  [`${Q}BodyTemperature`]: { metric: "body_temperature", defaultUnit: "Cel" },
  [`${Q}BodyMass`]: { metric: "weight", defaultUnit: "kg" },
  [`${Q}BodyMassIndex`]: { metric: "bmi", unit: "kg/m2", defaultUnit: "kg/m2" },
  [`${Q}BloodGlucose`]: { metric: "blood_glucose", defaultUnit: "mg/dL" },
  [`${Q}StepCount`]: { metric: "steps", unit: "{steps}", defaultUnit: "{steps}" },
  [`${Q}DistanceWalkingRunning`]: { metric: "distance", defaultUnit: "m" },
  [`${Q}ActiveEnergyBurned`]: { metric: "calories", defaultUnit: "kcal" },
  [`${Q}AppleExerciseTime`]: { metric: "active_minutes", defaultUnit: "min" },
};

/** Sleep stages (HKCategoryValueSleepAnalysis…) → duration metrics; in bed and awake are not sleep. */
const SLEEP_STAGES: Readonly<Record<string, string>> = {
  HKCategoryValueSleepAnalysisAsleep: "sleep",
  HKCategoryValueSleepAnalysisAsleepUnspecified: "sleep",
  HKCategoryValueSleepAnalysisAsleepCore: "sleep_light",
  HKCategoryValueSleepAnalysisAsleepDeep: "sleep_deep",
  HKCategoryValueSleepAnalysisAsleepREM: "sleep_rem",
};

const BLOOD_PRESSURE = "HKCorrelationTypeIdentifierBloodPressure";
export const BP_PARTS: Readonly<Record<string, string>> = { [`${Q}BloodPressureSystolic`]: "systolic", [`${Q}BloodPressureDiastolic`]: "diastolic" };

/** export.xml's "2024-01-15 08:00:00 -0500" → ISO 8601 with the offset kept; ISO input passes unchanged. */
export function healthKitTime(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-])(\d{2})(\d{2})$/.exec(text.trim());
  return m ? `${m[1]}T${m[2]}${m[3]}${m[4]}:${m[5]}` : text.trim();
}

const timeOf = (s: HealthKitSample): ReadingTime => {
  const start = healthKitTime(s.start);
  const end = healthKitTime(s.end);
  return start === end ? { at: start } : { start, end };
};

const numeric = (v: number | string | undefined): number | undefined => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
};

/** `name:Apple Watch` out of export.xml's `<<HKDevice: 0x…>, name:Apple Watch, …>` (or the app's plain name). */
const deviceName = (device: string | undefined) => (device ? (/name:([^,>]+)/.exec(device)?.[1]?.trim() ?? device.slice(0, 100)) : undefined);

function attributesOf(s: HealthKitSample, extra?: Readonly<Record<string, string>>): Record<string, string> {
  const name = deviceName(s.device);
  return { healthkit_type: s.type, ...(s.sourceName ? { source_name: s.sourceName } : {}), ...(name ? { source_device: name } : {}), ...extra };
}

export function mapHealthKitSample(device: LinkedDevice, s: HealthKitSample): Mapped {
  const quantity = QUANTITIES[s.type];
  if (quantity) {
    const value = numeric(s.value);
    const unit = quantity.unit ?? unitOf(s.unit, quantity.defaultUnit);
    return { readings: [reading(APPLE_HEALTH_KIND, device, { metric: quantity.metric, value, unit, time: timeOf(s), sourceRecordId: s.id, absentReason: "error", attributes: attributesOf(s, quantity.attributes) })] };
  }
  if (s.type === "HKCategoryTypeIdentifierSleepAnalysis") {
    const metric = SLEEP_STAGES[String(s.value)];
    if (!metric) return { skipped: `sleep sample ${String(s.value)} is not sleep (in bed or awake)` };
    const minutes = (Date.parse(healthKitTime(s.end)) - Date.parse(healthKitTime(s.start))) / 60_000;
    if (!Number.isFinite(minutes) || minutes < 0) return { skipped: "sleep sample without a readable start and end" };
    return { readings: [reading(APPLE_HEALTH_KIND, device, { metric, value: minutes, unit: "min", time: timeOf(s), sourceRecordId: s.id, attributes: attributesOf(s, { sleep_stage: String(s.value) }) })] };
  }
  if (s.type === BLOOD_PRESSURE) {
    const components = (s.objects ?? []).flatMap((o) => {
      const part = BP_PARTS[o.type];
      const value = numeric(o.value);
      return part ? [{ metric: part, unit: unitOf(o.unit, "mmHg"), ...(value === undefined ? {} : { value }) }] : [];
    });
    if (!components.some((c) => c.metric === "systolic") || !components.some((c) => c.metric === "diastolic")) return { skipped: "blood pressure correlation without both systolic and diastolic" };
    const panel: Reading = { patientId: device.patientId, deviceId: device.deviceId, platform: APPLE_HEALTH_KIND, metric: "blood_pressure", unit: "mmHg", components, time: timeOf(s), sourceRecordId: s.id, attributes: attributesOf(s) };
    return { readings: [panel] };
  }
  if (BP_PARTS[s.type]) return { skipped: "blood pressure is read from its correlation" };
  return { skipped: `HealthKit type ${s.type} is not imported` };
}
