// The metric table (wearables.md 2.1), pinned in code: every metric a reading may name, its
// Observation category, codings (the primary first: LOINC where one is verified, else the local
// CodeSystem; then extra codings, among them the spec's own code where the reference corrects
// it, so a search by either finds the reading), its canonical UCUM unit and the range a real
// measurement falls in (outside it a value is a sentinel or garbage, never a value).
import { type Coding, local, loinc, mdc } from "./codes";

export type Category = "vital-signs" | "activity" | "laboratory" | "exam";

export interface ComponentDefinition {
  readonly metric: string;
  readonly coding: readonly Coding[];
  readonly ucum: string;
  readonly range: readonly [number, number];
}

export interface MetricDefinition {
  readonly metric: string;
  readonly category: Category;
  readonly coding: readonly Coding[];
  /** Canonical UCUM unit; `undefined`: any valid UCUM unit, kept as sent (bedside streams). */
  readonly ucum?: string;
  /** The unit the vitals API shows (spec 2.8: bpm, %, minutes). */
  readonly unit: string;
  readonly range?: readonly [number, number];
  /** Panel metrics (blood pressure): the value is in components, not on the Observation. */
  readonly components?: readonly ComponentDefinition[];
  /** Waveforms (ECG): the value is valueSampledData. */
  readonly sampled?: true;
  /** g/mol, for UCUM molar ↔ mass conversion (glucose: 180.156, i.e. 1 mmol/L = 18.016 mg/dL). */
  readonly molecularWeight?: number;
}

const GLUCOSE_MW = 180.156;
const SPEC_CGM = loinc("14745-4", "Glucose [Moles/volume] in Body fluid");
const score = (metric: string, code: Parameters<typeof local>[0]): MetricDefinition => ({
  metric,
  category: "activity",
  coding: [local(code)],
  ucum: "{score}",
  unit: "score",
  range: [0, 100],
});
const minutes = (metric: string, coding: Coding): MetricDefinition => ({ metric, category: "activity", coding: [coding], ucum: "min", unit: "minutes", range: [0, 1440] });

const DEFINITIONS: readonly MetricDefinition[] = [
  // Heart (ECG / heart rate category)
  { metric: "heart_rate", category: "vital-signs", coding: [loinc("8867-4", "Heart rate"), mdc("147842", "MDC_ECG_HEART_RATE")], ucum: "/min", unit: "bpm", range: [20, 300] },
  { metric: "resting_heart_rate", category: "vital-signs", coding: [loinc("40443-4", "Heart rate --resting")], ucum: "/min", unit: "bpm", range: [20, 200] },
  { metric: "rr_interval", category: "vital-signs", coding: [local("rr-interval")], ucum: "ms", unit: "ms", range: [150, 3000] },
  { metric: "ecg", category: "vital-signs", coding: [local("ecg-waveform"), mdc("131328", "MDC_ECG_ELEC_POTL")], ucum: "mV", unit: "mV", sampled: true },
  { metric: "hrv", category: "vital-signs", coding: [local("hrv-rmssd")], ucum: "ms", unit: "ms", range: [1, 500] },
  { metric: "hrv_sdnn", category: "vital-signs", coding: [loinc("80404-7", "R-R interval.standard deviation (Heart rate variability)")], ucum: "ms", unit: "ms", range: [1, 500] },
  // Pulse oximetry, respiration, temperature
  { metric: "spo2", category: "vital-signs", coding: [loinc("2708-6", "Oxygen saturation in Arterial blood"), loinc("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry")], ucum: "%", unit: "%", range: [50, 100] },
  { metric: "respiratory_rate", category: "vital-signs", coding: [loinc("9279-1", "Respiratory rate")], ucum: "/min", unit: "breaths/min", range: [2, 80] },
  { metric: "body_temperature", category: "vital-signs", coding: [loinc("8310-5", "Body temperature")], ucum: "Cel", unit: "°C", range: [25, 45] },
  // Wrist skin temperature (WHOOP): a measured quantity. 39106-0 "Temperature of Skin" is a nominal finding (warm, cold), not this.
  { metric: "skin_temperature", category: "vital-signs", coding: [loinc("61008-9", "Body surface temperature")], ucum: "Cel", unit: "°C", range: [15, 45] },
  // A deviation, not a temperature: °F would convert as an absolute scale, so only Cel (or K) is accepted.
  { metric: "skin_temperature_delta", category: "vital-signs", coding: [local("skin-temperature-delta")], ucum: "Cel", unit: "°C", range: [-10, 10] },
  // Blood pressure: the vital-signs panel; Continua's 55284-4 (the spec's code) and MDC as extra codings.
  {
    metric: "blood_pressure",
    category: "vital-signs",
    coding: [loinc("85354-9", "Blood pressure panel with all children optional"), loinc("55284-4", "Blood pressure systolic and diastolic"), mdc("150020", "MDC_PRESS_BLD_NONINV")],
    unit: "mmHg",
    components: [
      { metric: "systolic", coding: [loinc("8480-6", "Systolic blood pressure"), mdc("150021", "MDC_PRESS_BLD_NONINV_SYS")], ucum: "mm[Hg]", range: [40, 300] },
      { metric: "diastolic", coding: [loinc("8462-4", "Diastolic blood pressure"), mdc("150022", "MDC_PRESS_BLD_NONINV_DIA")], ucum: "mm[Hg]", range: [20, 200] },
      { metric: "mean", coding: [loinc("8478-0", "Mean blood pressure"), mdc("150023", "MDC_PRESS_BLD_NONINV_MEAN")], ucum: "mm[Hg]", range: [20, 250] },
    ],
  },
  // Weight / BMI
  { metric: "weight", category: "vital-signs", coding: [loinc("29463-7", "Body weight")], ucum: "kg", unit: "kg", range: [0.2, 700] },
  { metric: "height", category: "vital-signs", coding: [loinc("8302-2", "Body height")], ucum: "cm", unit: "cm", range: [20, 280] },
  { metric: "body_fat", category: "vital-signs", coding: [loinc("41982-0", "Percentage of body fat Measured")], ucum: "%", unit: "%", range: [1, 80] },
  { metric: "bmi", category: "vital-signs", coding: [loinc("39156-5", "Body mass index (BMI) [Ratio]")], ucum: "kg/m2", unit: "kg/m2", range: [5, 150] },
  // Glucose: meters (capillary blood) and CGM (interstitial fluid, the CGM IG's code); 14745-4, the spec's code, as extra coding.
  { metric: "blood_glucose", category: "laboratory", coding: [loinc("2339-0", "Glucose [Mass/volume] in Blood"), SPEC_CGM], ucum: "mg/dL", unit: "mg/dL", range: [10, 1500], molecularWeight: GLUCOSE_MW },
  { metric: "cgm_glucose", category: "laboratory", coding: [loinc("99504-3", "Glucose [Mass/volume] in Interstitial fluid"), SPEC_CGM], ucum: "mg/dL", unit: "mg/dL", range: [10, 1500], molecularWeight: GLUCOSE_MW },
  { metric: "time_in_range", category: "laboratory", coding: [loinc("97510-2", "Glucose readings in range [Time] Interstitial fluid")], ucum: "%", unit: "%", range: [0, 100] },
  // Spirometry: three codes, three Observations. 19868-9 (the spec's "spirometry" code) is FVC.
  { metric: "fev1", category: "exam", coding: [loinc("20150-9", "FEV1")], ucum: "L", unit: "L", range: [0.1, 10] },
  { metric: "fvc", category: "exam", coding: [loinc("19868-9", "Forced vital capacity [Volume] Respiratory system by Spirometry")], ucum: "L", unit: "L", range: [0.1, 12] },
  { metric: "peak_flow", category: "exam", coding: [loinc("19935-6", "Maximum expiratory gas flow Respiratory system airway by Peak flow meter")], ucum: "L/min", unit: "L/min", range: [10, 1200] },
  // Activity
  { metric: "steps", category: "activity", coding: [loinc("55423-8", "Number of steps in unspecified time Pedometer")], ucum: "{steps}", unit: "steps", range: [0, 200_000] },
  { metric: "calories", category: "activity", coding: [loinc("41981-2", "Calories burned")], ucum: "kcal", unit: "kcal", range: [0, 20_000] },
  minutes("active_minutes", loinc("55411-3", "Exercise duration")),
  { metric: "distance", category: "activity", coding: [local("distance")], ucum: "m", unit: "m", range: [0, 1_000_000] },
  { metric: "floors", category: "activity", coding: [local("floors-climbed")], ucum: "{floors}", unit: "floors", range: [0, 2_000] },
  { metric: "elevation_gain", category: "activity", coding: [local("elevation-gain")], ucum: "m", unit: "m", range: [0, 20_000] },
  // Sleep (interval aggregates: effectivePeriod)
  minutes("sleep", loinc("93832-4", "Sleep duration")),
  minutes("sleep_deep", loinc("93831-6", "Deep sleep duration")),
  minutes("sleep_light", loinc("93830-8", "Light sleep duration")),
  minutes("sleep_rem", loinc("93829-0", "REM sleep duration")),
  { metric: "sleep_efficiency", category: "activity", coding: [local("sleep-efficiency")], ucum: "%", unit: "%", range: [0, 100] },
  { metric: "sleep_performance", category: "activity", coding: [local("sleep-performance")], ucum: "%", unit: "%", range: [0, 100] },
  // Scores (spec 2.2: a wellness score is category activity)
  score("stress", "stress"),
  score("body_battery", "body-battery"),
  score("readiness_score", "readiness-score"),
  score("recovery_score", "recovery-score"),
  score("sleep_score", "sleep-score"),
  score("activity_score", "activity-score"),
  { metric: "strain", category: "activity", coding: [local("strain")], ucum: "{score}", unit: "score", range: [0, 21] },
  // Bedside monitor streams: the device's own code (MDC) travels as attributes.mdc_code and is added as an extra coding.
  { metric: "bedside", category: "vital-signs", coding: [local("bedside-stream")], unit: "" },
];

export const METRICS: ReadonlyMap<string, MetricDefinition> = new Map(DEFINITIONS.map((d) => [d.metric, d]));

export const metricDefinition = (metric: string): MetricDefinition | undefined => METRICS.get(metric);

/**
 * The 13 metrics of the vitals query (spec 2.8), each with the stored metrics it reads: a
 * patient's glucose is the meter's and the CGM's.
 */
export const VITALS_METRICS = {
  heart_rate: ["heart_rate"],
  spo2: ["spo2"],
  sleep: ["sleep"],
  sleep_efficiency: ["sleep_efficiency"],
  calories: ["calories"],
  active_minutes: ["active_minutes"],
  distance: ["distance"],
  steps: ["steps"],
  hrv: ["hrv"],
  stress: ["stress"],
  body_battery: ["body_battery"],
  respiratory_rate: ["respiratory_rate"],
  blood_glucose: ["blood_glucose", "cgm_glucose"],
} as const satisfies Record<string, readonly string[]>;

export type VitalsMetric = keyof typeof VITALS_METRICS;
export const VITALS_METRIC_NAMES = Object.keys(VITALS_METRICS) as VitalsMetric[];
