// The MQTT topic and payload convention (docs/devices.md, "MQTT"): envelopes become the Worker's
// DeviceReading, malformed ones a reason, and the message id (given or derived) the dedup key.
import { describe, expect, it } from "vitest";
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
    // An unknown MDC code is a bedside monitor stream, its code kept.
    const bedside = read({ msgId: "m-5", patientRef: "p1", mdc: "188736", value: 37, ucum: "Cel", ts: AT });
    expect(bedside.ok && bedside.reading).toMatchObject({ metric: "bedside", attributes: { mdc_code: "188736" } });
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
