// The metric table and normalisation, inside workerd (so UCUM's library is proven to load
// there): each metric and category of spec 2.9 mapped with codes and units checked, the
// conversions the issue lists, sentinels never becoming values.
import { describe, expect, it } from "vitest";
import { DEVICE_METRICS_SYSTEM, deviceMetricsCodeSystem, LOINC, MDC } from "../../src/features/devices/metrics/codes";
import { normaliseReading } from "../../src/features/devices/metrics/normalise";
import { METRICS, VITALS_METRIC_NAMES } from "../../src/features/devices/metrics/table";
import { sampleKeyOf, toObservation } from "../../src/features/devices/observation";
import type { Reading } from "../../src/features/devices/reading";

const base = { patientId: "p1", deviceId: "d1", platform: "smart_ring", sourceRecordId: "r1", time: { at: "2026-01-15T08:00:00Z" } };
const reading = (r: Partial<Reading> & Pick<Reading, "metric" | "unit">): Reading => ({ ...base, ...r }) as Reading;

// biome-ignore lint/suspicious/noExplicitAny: test helper for reading mapped JSON
type Json = any;

function observe(r: Reading): Json {
  const n = normaliseReading(r);
  if (!n.ok) throw new Error(JSON.stringify(n.errors));
  return toObservation(n.reading, { id: "d1", name: "Ring" });
}
const codes = (o: Json) => (o.code.coding as { system: string; code: string }[]).map((c) => `${c.system === LOINC ? "loinc" : c.system === MDC ? "mdc" : "local"}:${c.code}`);

describe("metric table", () => {
  it("pins one definition per metric, a category and a coding each, and all 13 vitals metrics", () => {
    expect(VITALS_METRIC_NAMES).toHaveLength(13);
    for (const name of VITALS_METRIC_NAMES) expect(METRICS.has(name)).toBe(true);
    for (const d of METRICS.values()) expect(d.coding.length).toBeGreaterThan(0);
  });

  it("codes the metrics LOINC lacks in the published local CodeSystem, which lists each of them", () => {
    const cs = deviceMetricsCodeSystem();
    const published = new Set(cs.concept.map((c) => c.code));
    const local = [...METRICS.values()].flatMap((d) => d.coding.filter((c) => c.system === DEVICE_METRICS_SYSTEM));
    expect(local.length).toBeGreaterThan(5);
    for (const c of local) expect(published.has(c.code)).toBe(true);
    // The reference's corrections: RMSSD is not 80404-7 (SDNN), distance's 41953-2 is unverified.
    expect(METRICS.get("hrv")!.coding.map((c) => c.code)).toEqual(["hrv-rmssd"]);
    expect(METRICS.get("distance")!.coding.map((c) => c.code)).toEqual(["distance"]);
  });
});

describe("categories of spec 2.9", () => {
  it("CGM: 99504-3 with the spec's 14745-4, mmol/L → mg/dL with glucose's molecular weight, trend direction", () => {
    const o = observe(reading({ metric: "cgm_glucose", value: 5.5, unit: "mmol/L", attributes: { trend: "rising" } }));
    expect(codes(o)).toEqual(["loinc:99504-3", "loinc:14745-4"]);
    expect(o.category[0].coding[0].code).toBe("laboratory");
    expect(o.valueQuantity).toEqual({ value: 99.0858, unit: "mg/dL", system: "http://unitsofmeasure.org", code: "mg/dL" });
    expect(o.component).toEqual([{ code: { coding: [expect.objectContaining({ code: "cgm-trend" })] }, valueString: "rising" }]);
  });

  it("CGM time in range over a period: 97510-2 in %, effectivePeriod", () => {
    const o = observe(reading({ metric: "time_in_range", value: 0.72, unit: "fraction", time: { start: "2026-01-14T00:00:00Z", end: "2026-01-15T00:00:00Z" } }));
    expect(codes(o)).toEqual(["loinc:97510-2"]);
    expect(o.valueQuantity.value).toBe(72);
    expect(o.effectivePeriod).toEqual({ start: "2026-01-14T00:00:00.000Z", end: "2026-01-15T00:00:00.000Z" });
    expect(o.effectiveDateTime).toBeUndefined();
  });

  it("ECG/heart rate: 8867-4 in /min, RR interval in ms, the waveform as valueSampledData", () => {
    const hr = observe(reading({ metric: "heart_rate", value: 72, unit: "bpm" }));
    expect(codes(hr)).toEqual(["loinc:8867-4", "mdc:147842"]);
    expect(hr.valueQuantity).toMatchObject({ value: 72, code: "/min", unit: "bpm" });
    expect(hr.category[0].coding[0].code).toBe("vital-signs");
    expect(observe(reading({ metric: "rr_interval", value: 0.82, unit: "s" })).valueQuantity).toMatchObject({ value: 820, code: "ms" });
    const ecg = observe(reading({ metric: "ecg", unit: "mV", samples: { periodMs: 2, values: [0.1, 0.5, -0.2] } }));
    expect(ecg.valueSampledData).toEqual({ origin: { value: 0, unit: "mV", system: "http://unitsofmeasure.org", code: "mV" }, period: 2, dimensions: 1, data: "0.1 0.5 -0.2" });
    expect(ecg.valueQuantity).toBeUndefined();
  });

  it("blood pressure: the 85354-9 panel (55284-4 kept) with systolic and diastolic components in mm[Hg]", () => {
    const o = observe(reading({ metric: "blood_pressure", unit: "mmHg", components: [{ metric: "systolic", value: 128, unit: "mmHg" }, { metric: "diastolic", value: 82, unit: "mm[Hg]" }] }));
    expect(codes(o)).toEqual(["loinc:85354-9", "loinc:55284-4", "mdc:150020"]);
    expect(o.valueQuantity).toBeUndefined();
    expect(o.component.map((c: Json) => [c.code.coding[0].code, c.valueQuantity.value, c.valueQuantity.code])).toEqual([["8480-6", 128, "mm[Hg]"], ["8462-4", 82, "mm[Hg]"]]);
  });

  it("pulse oximetry: 2708-6 and 59408-5, a fraction becomes %", () => {
    const o = observe(reading({ metric: "spo2", value: 0.97, unit: "fraction" }));
    expect(codes(o)).toEqual(["loinc:2708-6", "loinc:59408-5"]);
    expect(o.valueQuantity).toMatchObject({ value: 97, code: "%" });
  });

  it("weight in lb becomes kg, BMI in kg/m2", () => {
    expect(observe(reading({ metric: "weight", value: 150, unit: "lb" })).valueQuantity).toMatchObject({ value: 68.0388555, code: "kg" });
    const bmi = observe(reading({ metric: "bmi", value: 24.1, unit: "kg/m2" }));
    expect(codes(bmi)).toEqual(["loinc:39156-5"]);
  });

  it("spirometry: FEV1, FVC and peak flow as three codes", () => {
    expect(codes(observe(reading({ metric: "fev1", value: 3.1, unit: "L" })))).toEqual(["loinc:20150-9"]);
    expect(codes(observe(reading({ metric: "fvc", value: 4200, unit: "mL" })))).toEqual(["loinc:19868-9"]);
    expect(observe(reading({ metric: "fvc", value: 4200, unit: "mL" })).valueQuantity.value).toBe(4.2);
    expect(codes(observe(reading({ metric: "peak_flow", value: 450, unit: "L/min" })))).toEqual(["loinc:19935-6"]);
  });

  it("bedside streams keep the monitor's own MDC code and a valid UCUM unit", () => {
    const o = observe(reading({ metric: "bedside", value: 12, unit: "cm[H2O]", attributes: { mdc_code: "151957", mdc_display: "MDC_PRESS_AWAY" } }));
    expect(codes(o)).toEqual(["local:bedside-stream", "mdc:151957"]);
    expect(o.valueQuantity).toMatchObject({ value: 12, code: "cm[H2O]" });
  });

  it("activity and scores: kJ → kcal, °F → °C, steps, a score as activity", () => {
    expect(observe(reading({ metric: "calories", value: 1000, unit: "kJ" })).valueQuantity).toMatchObject({ value: 239.005736138, code: "kcal" });
    expect(observe(reading({ metric: "body_temperature", value: 98.6, unit: "°F" })).valueQuantity).toMatchObject({ value: 37, code: "Cel" });
    expect(observe(reading({ metric: "steps", value: 8000, unit: "steps" })).valueQuantity).toMatchObject({ value: 8000, code: "{steps}" });
    const stress = observe(reading({ metric: "stress", value: 40, unit: "{score}" }));
    expect(stress.category[0].coding[0].code).toBe("activity");
    expect(codes(stress)).toEqual(["local:stress"]);
  });
});

describe("sentinels and bad readings", () => {
  it("Garmin stress −1…−5 and nulls never become values: dataAbsentReason, the sentinel in a note", () => {
    for (const v of [-1, -2, -5]) {
      const o = observe(reading({ metric: "stress", value: v, unit: "score" }));
      expect(o.valueQuantity).toBeUndefined();
      expect(o.dataAbsentReason.coding[0].code).toBe("error");
      expect(o.note[0].text).toContain(String(v));
    }
    expect(observe(reading({ metric: "heart_rate", unit: "bpm" })).dataAbsentReason.coding[0].code).toBe("unknown");
    expect(observe(reading({ metric: "recovery_score", value: 55, unit: "score", absentReason: "not-performed" })).valueQuantity).toBeUndefined();
  });

  it("names the field of what it cannot read", () => {
    const errors = (r: Reading) => (normaliseReading(r) as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(errors(reading({ metric: "nope", value: 1, unit: "bpm" }))).toEqual(["metric"]);
    expect(errors(reading({ metric: "heart_rate", value: 70, unit: "furlongs" }))).toEqual(["unit"]);
    expect(errors(reading({ metric: "heart_rate", value: 70, unit: "kg" }))).toEqual(["unit"]);
    expect(errors(reading({ metric: "heart_rate", value: 70, unit: "bpm", time: { at: "yesterday" } }))).toEqual(["time.at"]);
    expect(errors(reading({ metric: "blood_pressure", unit: "mmHg", components: [{ metric: "pulse", value: 1, unit: "mmHg" }] }))).toContain("components[0].metric");
    expect(errors(reading({ metric: "ecg", unit: "mV" }))).toEqual(["samples"]);
  });
});

describe("a vendor's aggregates", () => {
  it("say their statistic on the Observation (method) and sit in their own series; samples and chosen roll-up windows do not", () => {
    const day = { start: "2026-01-15T00:00:00Z", end: "2026-01-16T00:00:00Z" };
    const average = observe(reading({ metric: "heart_rate", value: 64, unit: "bpm", time: day, attributes: { statistic: "average" } }));
    expect(average.method).toEqual({ coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-statistics", code: "average", display: "Average" }], text: "average" });
    expect(sampleKeyOf(average)).toEqual({ patientId: "p1", metric: "heart_rate@average", t: Date.parse(day.start), deviceId: "d1" });
    const sample = observe(reading({ metric: "heart_rate", value: 58, unit: "bpm", time: { at: day.start } }));
    expect(sample.method).toBeUndefined();
    expect(sampleKeyOf(sample)).toMatchObject({ metric: "heart_rate", t: Date.parse(day.start) });
    // A Google Health 5-minute window the organization chose as the resolution stands for the samples.
    const window = observe(reading({ metric: "heart_rate", value: 70, unit: "bpm", time: day, attributes: { statistic: "average", resolution: "5m" } }));
    expect(sampleKeyOf(window)?.metric).toBe("heart_rate");
    // A statistic the series does not know is an attribute only.
    expect(sampleKeyOf(observe(reading({ metric: "heart_rate", value: 70, unit: "bpm", attributes: { statistic: "median" } })))?.metric).toBe("heart_rate");
  });
});
