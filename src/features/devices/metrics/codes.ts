// The code systems a device Observation is coded in, and the service's own CodeSystem for the
// metrics LOINC has no code for (wearables.md 2.1: RMSSD, vendor scores, sleep efficiency...).
// The local CodeSystem is published as a FHIR resource (GET /api/v1/devices/code-system) and
// its canonical URL is the system of every local coding.

export const LOINC = "http://loinc.org";
export const UCUM = "http://unitsofmeasure.org";
/** ISO/IEEE 11073-10101 nomenclature (MDC), the codes PHD gateways and bedside monitors send. */
export const MDC = "urn:iso:std:iso:11073:10101";
export const DEVICE_METRICS_SYSTEM = "urn:cdis:device-metric";
export const OBSERVATION_CATEGORY = "http://terminology.hl7.org/CodeSystem/observation-category";
export const DATA_ABSENT_REASON = "http://terminology.hl7.org/CodeSystem/data-absent-reason";

export interface Coding {
  readonly system: string;
  readonly code: string;
  readonly display: string;
}

export const loinc = (code: string, display: string): Coding => ({ system: LOINC, code, display });
export const mdc = (code: string, display: string): Coding => ({ system: MDC, code, display });

/** The local concepts, in one place so the CodeSystem resource and the metric table cannot differ. */
export const LOCAL_CONCEPTS = {
  "hrv-rmssd": "Heart rate variability, RMSSD (root mean square of successive R-R differences)",
  "rr-interval": "R-R interval",
  "sleep-efficiency": "Sleep efficiency (time asleep / time in bed)",
  stress: "Stress level score (vendor scale 0-100)",
  "body-battery": "Body energy reserve score (vendor scale 0-100)",
  "readiness-score": "Readiness score (vendor scale 0-100)",
  "recovery-score": "Recovery score (vendor scale 0-100)",
  "sleep-score": "Sleep score (vendor scale 0-100)",
  "activity-score": "Activity score (vendor scale 0-100)",
  "sleep-performance": "Sleep performance (sleep obtained as a percentage of the sleep needed, vendor-computed)",
  strain: "Strain: cardiovascular load over a day or workout (WHOOP scale 0-21)",
  distance: "Distance covered (LOINC 41953-2 unverified)",
  "floors-climbed": "Floors climbed (elevation gained, counted in floors)",
  "elevation-gain": "Elevation gained (altitude climbed, not height above sea level)",
  "skin-temperature-delta": "Skin temperature deviation from the wearer's baseline",
  "cgm-trend": "Glucose trend direction reported by a continuous glucose monitor",
  "ecg-waveform": "ECG waveform, one lead",
  "bedside-stream": "Vital sign from a bedside monitor stream (device-specific code kept as extra coding)",
} as const satisfies Record<string, string>;

export type LocalCode = keyof typeof LOCAL_CONCEPTS;

export const local = (code: LocalCode): Coding => ({ system: DEVICE_METRICS_SYSTEM, code, display: LOCAL_CONCEPTS[code] });

/** The FHIR CodeSystem resource for the local codes (content complete, so a validator can check them). */
export function deviceMetricsCodeSystem() {
  return {
    resourceType: "CodeSystem",
    id: "device-metric",
    url: DEVICE_METRICS_SYSTEM,
    version: "1",
    name: "DeviceMetric",
    title: "Device metrics without a LOINC code",
    status: "active",
    content: "complete",
    caseSensitive: true,
    description: "Wearable and device metrics for which no LOINC code was found (see docs/devices.md).",
    count: Object.keys(LOCAL_CONCEPTS).length,
    concept: Object.entries(LOCAL_CONCEPTS).map(([code, display]) => ({ code, display })),
  };
}
