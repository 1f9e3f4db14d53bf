// The MQTT topic and payload convention (docs/devices.md, "MQTT"): envelopes become the Worker's
// DeviceReading, malformed ones a reason, and the message id (given or derived) the dedup key.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MDC_CODES, mdcCode } from "../../src/features/devices/metrics/mdc";
import { METRICS } from "../../src/features/devices/metrics/table";
import { readMessage, topicFilter } from "../src/protocols/device-readings/convention";

const ORG = "org-a";
const TOPIC = "rpm/org-a/devices/dev-1/obs";
const AT = "2026-11-24T10:00:00.000Z";
const read = (payload: unknown, topic = TOPIC) => readMessage({ topic, payload: typeof payload === "string" ? payload : JSON.stringify(payload) }, ORG, AT);

describe("MQTT convention", () => {
  it("subscribes to the organization's device topics", () => {
    expect(topicFilter(ORG)).toBe("rpm/org-a/devices/+/obs");
  });

  it("maps the reference envelope (LOINC) to a DeviceReading keyed by device and msgId", () => {
    const r = read({ msgId: "m-1", patientRef: "Patient/p1", loinc: "8867-4", value: 72, ucum: "/min", ts: "2026-11-24T09:00:00-05:00", tsQuality: "synced", seq: 4 });
    expect(r).toEqual({
      ok: true,
      deviceId: "dev-1",
      messageId: "m-1",
      reading: { patient_id: "p1", device_id: "dev-1", metric: "heart_rate", value: 72, unit: "/min", time: { at: "2026-11-24T09:00:00-05:00" }, platform: "mqtt", source_record_id: "dev-1:m-1" },
    });
  });

  it("maps MDC codes, blood pressure components by MDC, and the service's own metric names", () => {
    const bp = read({ msgId: "m-2", patientRef: "p1", mdc: "150020", components: [{ mdc: "150021", value: 120, ucum: "mm[Hg]" }, { mdc: "150022", value: 80, ucum: "mm[Hg]" }], ts: AT });
    expect(bp.ok && bp.reading).toMatchObject({ metric: "blood_pressure", unit: "mm[Hg]", components: [{ metric: "systolic", value: 120 }, { metric: "diastolic", value: 80 }] });
    const hr = read({ msgId: "m-3", patientRef: "p1", mdc: "147842", value: 61, ucum: "/min", ts: AT });
    expect(hr.ok && hr.reading.metric).toBe("heart_rate");
    const cgm = read({ msgId: "m-4", patientRef: "p1", metric: "cgm_glucose", value: 5.5, unit: "mmol/L", ts: AT, trend: "rising" });
    expect(cgm.ok && cgm.reading).toMatchObject({ metric: "cgm_glucose", unit: "mmol/L", attributes: { trend: "rising" } });
    // A code of no metric (MDC_PULS_OXIM_PERF_REL, the perfusion index) is a bedside monitor stream, its code kept.
    const bedside = read({ msgId: "m-5", patientRef: "p1", mdc: "150448", value: 3.1, ucum: "%", ts: AT });
    expect(bedside.ok && bedside.reading).toMatchObject({ metric: "bedside", attributes: { mdc_code: "150448" } });
  });

  // Spec 2.9's categories by their IEEE 11073-10101 codes (partition 2 × 65536 + term code), as
  // public listings of the nomenclature give them; docs/devices.md, "MDC codes".
  it.each([
    ["160212", "MDC_CONC_GLU_ISF", "cgm_glucose", "mg/dL"],
    ["160184", "MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD", "blood_glucose", "mg/dL"],
    ["147842", "MDC_ECG_HEART_RATE", "heart_rate", "/min"],
    ["147240", "MDC_ECG_TIME_PD_RR_GL", "rr_interval", "ms"],
    ["150456", "MDC_PULS_OXIM_SAT_O2", "spo2", "%"],
    ["149530", "MDC_PULS_OXIM_PULS_RATE", "heart_rate", "/min"],
    ["149546", "MDC_PULS_RATE_NON_INV", "heart_rate", "/min"],
    ["188736", "MDC_MASS_BODY_ACTUAL", "weight", "kg"],
    ["188740", "MDC_LEN_BODY_ACTUAL", "height", "cm"],
    ["188752", "MDC_RATIO_MASS_BODY_LEN_SQ", "bmi", "kg/m2"],
    ["152586", "MDC_VOL_AWAY_EXP_FORCED_1S", "fev1", "L"],
    ["188928", "MDC_VOL_AWAY_EXP_FORCED_CAPACITY", "fvc", "L"],
    ["152584", "MDC_FLOW_AWAY_EXP_FORCED_PEAK", "peak_flow", "L/min"],
    ["150364", "MDC_TEMP_BODY", "body_temperature", "Cel"],
    ["188424", "MDC_TEMP_ORAL", "body_temperature", "Cel"],
    ["150392", "MDC_TEMP_TYMP", "body_temperature", "Cel"],
    ["151562", "MDC_RESP_RATE", "respiratory_rate", "/min"],
  ])("MDC %s (%s) is %s in %s", (mdc, refId, metric, unit) => {
    const r = read({ msgId: `m-${mdc}`, patientRef: "p1", mdc, value: 42, ts: AT });
    expect(r.ok && r.reading).toMatchObject({ metric, value: 42, unit });
    expect(mdcCode(mdc)?.refId).toBe(refId);
  });

  it("maps blood pressure parts sent alone to the panel, and keeps a mapped code its metric lacks as an extra coding", () => {
    for (const [mdc, component] of [["150021", "systolic"], ["150022", "diastolic"], ["150023", "mean"], ["150301", "systolic"], ["150302", "diastolic"], ["150303", "mean"]] as const) {
      const part = read({ msgId: `bp-${mdc}`, patientRef: "p1", mdc, value: 90, ts: AT });
      expect(part.ok && part.reading).toMatchObject({ metric: "blood_pressure", unit: "mm[Hg]", components: [{ metric: component, value: 90, unit: "mm[Hg]" }] });
    }
    const cuff = read({ msgId: "bp-cuff", patientRef: "p1", mdc: "150020", components: [{ mdc: "150301", value: 118, ucum: "mm[Hg]" }, { mdc: "150302", value: 76, ucum: "mm[Hg]" }], ts: AT });
    expect(cuff.ok && cuff.reading.components?.map((c) => c.metric)).toEqual(["systolic", "diastolic"]);
    const pulse = read({ msgId: "pr", patientRef: "p1", mdc: "149530", value: 64, ucum: "/min", ts: AT });
    expect(pulse.ok && pulse.reading.attributes).toEqual({ mdc_code: "149530", mdc_display: "MDC_PULS_OXIM_PULS_RATE" });
    // The metric's own MDC coding (heart rate's 147842) is not added twice.
    const ecg = read({ msgId: "ecg", patientRef: "p1", mdc: "147842", value: 64, ts: AT });
    expect(ecg.ok && ecg.reading.attributes).toBeUndefined();
  });

  it("docs/devices.md's MDC table is the one the bridge maps with", () => {
    const doc = readFileSync(new URL("../../docs/devices.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| [^|]* \| (\d+) \| `(MDC_[A-Z0-9_]+)` \| `([a-z0-9_]+)`[^|]*\| `([^`]+)` \|$/gm)].map((m) => [m[1], m[2], m[3], m[4]]);
    const byCode = (a: unknown[], b: unknown[]) => Number(a[0]) - Number(b[0]);
    expect(rows.sort(byCode)).toEqual(MDC_CODES.map((c) => [c.code, c.refId, c.metric, c.ucum]).sort(byCode));
  });

  it("lists each MDC code once, for a metric (and component) of the metric table", () => {
    expect(new Set(MDC_CODES.map((c) => c.code)).size).toBe(MDC_CODES.length);
    for (const c of MDC_CODES) {
      const def = METRICS.get(c.metric);
      expect(def, c.refId).toBeDefined();
      if (c.component) expect(def?.components?.some((d) => d.metric === c.component), c.refId).toBe(true);
    }
  });

  it("uses the receipt time for a device without a clock and keeps a sentinel as absent", () => {
    const noClock = read({ msgId: "m-6", patientRef: "p1", loinc: "8867-4", value: 70, ucum: "/min", tsQuality: "none" });
    expect(noClock.ok && noClock.reading).toMatchObject({ time: { at: AT }, attributes: { ts_quality: "none" } });
    const absent = read({ msgId: "m-7", patientRef: "p1", metric: "stress", value: null, ucum: "{score}", ts: AT, absentReason: "error" });
    expect(absent.ok && absent.reading).toMatchObject({ value: null, absent_reason: "error" });
  });

  it("derives the message id from (device, code, ts, value) when the gateway sends none", () => {
    const payload = { patientRef: "p1", loinc: "8867-4", value: 70, ucum: "/min", ts: AT };
    const a = read(payload);
    const b = read(payload);
    const c = read({ ...payload, value: 71 });
    expect(a.messageId).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(b.messageId).toBe(a.messageId);
    expect(c.messageId).not.toBe(a.messageId);
  });

  it.each([
    ["not JSON", "{oops", "payload is not JSON"],
    ["an array", "[1]", "payload is not a JSON object"],
    ["no patient", { msgId: "x", loinc: "8867-4", value: 1, ucum: "/min", ts: AT }, "no patientRef"],
    ["a bad patient reference", { msgId: "x", patientRef: "Patient/../x y", loinc: "8867-4", value: 1, ucum: "/min", ts: AT }, "is not Patient/<id>"],
    ["an unknown metric", { msgId: "x", patientRef: "p1", metric: "mood", value: 1, ts: AT }, 'unknown metric "mood"'],
    ["an unknown LOINC", { msgId: "x", patientRef: "p1", loinc: "0000-0", value: 1, ts: AT }, "no metric for LOINC 0000-0"],
    ["a text value", { msgId: "x", patientRef: "p1", loinc: "8867-4", value: "72", ucum: "/min", ts: AT }, "value is not a number"],
    ["no value", { msgId: "x", patientRef: "p1", loinc: "8867-4", ucum: "/min", ts: AT }, "no value, components, samples or absentReason"],
    ["a bad time", { msgId: "x", patientRef: "p1", loinc: "8867-4", value: 1, ucum: "/min", ts: "yesterday" }, "ts is not an ISO 8601 date-time"],
    ["an unknown component", { msgId: "x", patientRef: "p1", mdc: "150020", components: [{ mdc: "1", value: 1, ucum: "mm[Hg]" }], ts: AT }, "no component of blood_pressure"],
  ])("refuses %s with a reason", (_name, payload, reason) => {
    const r = read(payload);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(reason);
    expect(r.deviceId).toBe("dev-1");
  });

  it("refuses topics outside the convention and topics of another organization", () => {
    const payload = { msgId: "x", patientRef: "p1", loinc: "8867-4", value: 1, ucum: "/min", ts: AT };
    expect(read(payload, "rpm/org-a/devices/dev-1/status")).toMatchObject({ ok: false, deviceId: null });
    expect(read(payload, "rpm/org-b/devices/dev-1/obs")).toMatchObject({ ok: false, reason: expect.stringContaining('organization "org-b"') });
  });
});
