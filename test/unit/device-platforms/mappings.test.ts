// Vendor payloads (test/fixtures/wearables, from the reference) → readings: codes the device
// core normalises, units as the vendor sends them, unscored and null samples never a value.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mapOura } from "../../../src/features/devices/platforms/oura/mapping";
import { mapSuunto247 } from "../../../src/features/devices/platforms/suunto/mapping";
import { mapWhoop } from "../../../src/features/devices/platforms/whoop/mapping";

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

describe("Suunto 24/7", () => {
  const samples = (name: string) => fixture(name).samples;
  const values = (readings: { metric: string; value?: number; unit: string }[]) => readings.map((r) => [r.metric, r.value, r.unit]);

  it("activity samples → heart rate, steps, energy in joules, SpO2 as percent, RMSSD HRV; a zero HRV and missing keys are no reading", () => {
    const { readings } = mapSuunto247(device, "johndoe123", "activity", samples("suunto-247-activity.json"));
    expect(values(readings)).toEqual([
      ["heart_rate", 62, "bpm"],
      ["steps", 412, "steps"],
      ["calories", 125520, "J"],
      ["spo2", 97, "%"],
      ["hrv", 48, "ms"],
      ["heart_rate", 71, "bpm"],
      ["steps", 0, "steps"],
      ["calories", 62760, "J"],
      ["steps", 35, "steps"],
    ]);
    expect(readings[0]).toMatchObject({ platform: "outdoor_watch", time: { at: "2024-01-15T10:00:00.000+02:00" }, sourceRecordId: "johndoe123/247-activity@2024-01-15T10:00:00.000+02:00" });
    expect(pick(readings, "hrv")[0]).toMatchObject({ attributes: { method: "rmssd" } });
  });

  it("a sleep → asleep time (the stages' sum), the stages, quality score, average HR and HRV over the bedtime period", () => {
    const { readings } = mapSuunto247(device, "johndoe123", "sleep", samples("suunto-247-sleep.json"));
    expect(values(readings)).toEqual([
      ["sleep", 24900, "s"],
      ["sleep_deep", 5400, "s"],
      ["sleep_light", 14400, "s"],
      ["sleep_rem", 5100, "s"],
      ["sleep_score", 81, "score"],
      ["heart_rate", 54, "bpm"],
      ["hrv", 52, "ms"],
    ]);
    expect(readings.every((r) => r.sourceRecordId === "johndoe123/sleep-1705294800")).toBe(true);
    expect(readings[0]?.time).toEqual({ start: "2024-01-14T23:40:00.000+02:00", end: "2024-01-15T07:02:00.000+02:00" });
    expect(pick(readings, "heart_rate")[0]).toMatchObject({ attributes: { statistic: "average" } });
  });

  it("recovery → the resources balance as a 0–100 score with the stress state; an invalid state (0) is left out", () => {
    const { readings } = mapSuunto247(device, "johndoe123", "recovery", samples("suunto-247-recovery.json"));
    expect(values(readings)).toEqual([
      ["body_battery", 73, "score"],
      ["body_battery", 69, "score"],
    ]);
    expect(readings[0]?.attributes).toEqual({ suunto_metric: "resources", stress_state: "relaxing" });
    expect(readings[1]?.attributes).toEqual({ suunto_metric: "resources" });
  });

  it("samples without a timestamp, a sleep without bedtimes and a body that is not a list give nothing, and say why", () => {
    expect(mapSuunto247(device, "u", "activity", [{ entryData: { HR: 60 } }])).toEqual({ readings: [], unread: "none of the 1 samples has an ISO 8601 timestamp (the first has fields entryData)" });
    expect(mapSuunto247(device, "u", "sleep", [{ timestamp: "2024-01-15T07:00:00Z", entryData: { Duration: 100 } }])).toEqual({
      readings: [],
      unread: "none of the 1 samples' entryData holds a value the sleep mapping reads (the first entryData has fields Duration)",
    });
    expect(mapSuunto247(device, "u", "recovery", { samples: [] })).toEqual({ readings: [], unread: "samples is not a list (fields samples)" });
    expect(mapSuunto247(device, "u", "recovery", [])).toEqual({ readings: [], unread: "samples is an empty list" });
  });
});
