// Vendor payloads (test/fixtures/wearables, from the reference) → readings: codes the device
// core normalises, units as the vendor sends them, unscored and null samples never a value.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mapOura } from "../../../src/device-platforms/oura/mapping";
import { mapWhoop } from "../../../src/device-platforms/whoop/mapping";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "../../fixtures/wearables", name), "utf8"));
const device = { deviceId: "dev-1", patientId: "pat-1" };
const pick = (readings: { metric: string }[], metric: string) => readings.filter((r) => r.metric === metric);

describe("Oura", () => {
  it("daily_sleep → a sleep score for the day", () => {
    const r = mapOura(device, "daily_sleep", fixture("oura-daily-sleep.json").data[0])[0]!;
    expect(r).toMatchObject({ metric: "sleep_score", value: 64, unit: "score", platform: "smart_ring", sourceRecordId: "8f9a5221-639e-4a85-81cb-4065ef23f979", patientId: "pat-1", deviceId: "dev-1" });
    expect(r.time).toEqual({ start: "2024-01-15T00:00:00.000Z", end: "2024-01-16T00:00:00.000Z" });
  });

  it("an unscored day is an absent reading, not a number", () => {
    const r = mapOura(device, "daily_sleep", { ...fixture("oura-daily-sleep.json").data[0], score: null })[0]!;
    expect(r.value).toBeUndefined();
    expect(r.absentReason).toBe("not-performed");
  });

  it("sleep period → duration, efficiency, RMSSD HRV, breath, and series without the null samples", () => {
    const readings = mapOura(device, "sleep", fixture("oura-sleep.json").data[0]);
    expect(pick(readings, "sleep")[0]).toMatchObject({ value: 27000, unit: "s", time: { start: "2024-01-14T23:00:00+00:00", end: "2024-01-15T07:00:00+00:00" } });
    expect(pick(readings, "sleep_efficiency")[0]).toMatchObject({ value: 88, unit: "%" });
    expect(pick(readings, "respiratory_rate")[0]).toMatchObject({ value: 15.5, unit: "/min" });
    const hrv = pick(readings, "hrv");
    expect(hrv.every((r) => (r as { attributes?: Record<string, string> }).attributes?.method === "rmssd")).toBe(true);
    expect(hrv.map((r) => (r as { value?: number }).value)).toEqual([45, 41, 45, 47]);
    const hr = pick(readings, "heart_rate");
    expect(hr.map((r) => (r as { value?: number }).value)).toEqual([56, 55, 54]);
    expect(hr[2]).toMatchObject({ time: { at: "2024-01-14T23:15:00.000Z" } });
  });

  it("heart rate samples carry their instant, scoped to the device, as the record id", () => {
    const readings = fixture("oura-heartrate.json").data.flatMap((d: unknown) => mapOura(device, "heartrate", d));
    expect(readings).toHaveLength(2);
    expect(readings[1]).toMatchObject({ metric: "heart_rate", value: 57, unit: "bpm", time: { at: "2024-01-15T00:05:00+00:00" }, sourceRecordId: "dev-1@2024-01-15T00:05:00+00:00" });
  });

  it("unknown data types give nothing", () => {
    expect(mapOura(device, "ring_configuration", {})).toEqual([]);
  });
});

describe("WHOOP", () => {
  it("a scored recovery → recovery score, resting HR, RMSSD HRV, SpO2, skin temperature", () => {
    const readings = mapWhoop(device, "recovery", fixture("whoop-recovery.json"));
    expect(readings.map((r) => [r.metric, r.value, r.unit])).toEqual([
      ["recovery_score", 44, "score"],
      ["resting_heart_rate", 64, "bpm"],
      ["hrv", 31.813562, "ms"],
      ["spo2", 95.6875, "%"],
      ["skin_temperature", 33.7, "Cel"],
    ]);
    // The recovery's own record (its sleep's UUID), not the cycle's nor the sleep's.
    expect(readings[0]?.sourceRecordId).toBe("recovery-123e4567-e89b-12d3-a456-426614174000");
  });

  it("PENDING_SCORE and UNSCORABLE are absent readings with their state", () => {
    for (const state of ["PENDING_SCORE", "UNSCORABLE"]) {
      const readings = mapWhoop(device, "recovery", { ...fixture("whoop-recovery.json"), score_state: state, score: undefined });
      expect(readings.every((r) => r.value === undefined && r.absentReason === "not-performed" && r.attributes?.score_state === state)).toBe(true);
      // Ids of their own: the scored values that follow are not their duplicates.
      expect(readings[0]?.sourceRecordId).toBe(`recovery-123e4567-e89b-12d3-a456-426614174000#${state}`);
    }
  });

  it("a cycle keeps energy in kJ; a running cycle (end null) is not a reading yet", () => {
    const cycle = fixture("whoop-cycles.json").records[0];
    expect(pick(mapWhoop(device, "cycle", cycle), "calories")[0]).toMatchObject({ value: 8288.297, unit: "kJ" });
    expect(mapWhoop(device, "cycle", { ...cycle, end: null })).toEqual([]);
  });
});
