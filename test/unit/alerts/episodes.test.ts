// Episodes of value rules: one alert per excursion, re-arm after the hysteresis margin, rapid
// change within the span; absence verdicts with and without the device's last sync.
import { describe, expect, it } from "vitest";
import { absenceVerdict, RECHECK_MS } from "../../../src/features/alerts/absence";
import { type Point, stepEpisodes } from "../../../src/features/alerts/episodes";
import { conflictProblems, effectiveHysteresis, ruleProblems } from "../../../src/features/alerts/rule";

const MIN = 60_000;
const series = (values: number[], stepMs = MIN): Point[] => values.map((v, i) => ({ t: i * stepMs, v, observationId: `o${i}` }));
const armed = { firing: false, recent: [] };

describe("value episodes", () => {
  it("fires once while the value stays high and re-arms only below threshold − hysteresis", () => {
    const { state, transitions } = stepEpisodes("high_value", { threshold: 120, hysteresis: 5 }, armed, series([100, 125, 140, 130, 118, 121, 114, 122]));
    expect(transitions).toEqual([
      { type: "fire", at: 1 * MIN, value: 125, reading: 125, limit: 120, observations: ["o1"] },
      // 118 and 121 sit in the hysteresis band (115..120]: still the same episode.
      { type: "rearm", at: 6 * MIN, observationId: "o6" },
      { type: "fire", at: 7 * MIN, value: 122, reading: 122, limit: 120, observations: ["o7"] },
    ]);
    expect(state.firing).toBe(true);
  });

  it("continues an episode across calls (state carried), and low/score rules mirror high", () => {
    const first = stepEpisodes("low_value", { threshold: 90, hysteresis: 2 }, armed, series([95, 88]));
    expect(first.transitions.map((t) => t.type)).toEqual(["fire"]);
    const second = stepEpisodes("low_value", { threshold: 90, hysteresis: 2 }, first.state, series([87, 91, 92]));
    expect(second.transitions).toEqual([{ type: "rearm", at: 2 * MIN, observationId: "o2" }]);
    const score = stepEpisodes("score_below", { threshold: 60 }, armed, series([70, 55, 50, 64]));
    // Default hysteresis: 5% of 60 = 3, so 64 ≥ 63 re-arms.
    expect(score.transitions.map((t) => t.type)).toEqual(["fire", "rearm"]);
  });

  it("rapid change: a rise or drop of at least the amount within the span, implicating the baseline", () => {
    const params = { amount: 30, span_minutes: 10, direction: "drop" as const };
    const { transitions } = stepEpisodes("rapid_change", params, armed, series([100, 95, 90, 68, 70, 72, 69], 2 * MIN));
    expect(transitions[0]).toEqual({ type: "fire", at: 6 * MIN, value: 32, reading: 68, from: 100, limit: 30, observations: ["o0", "o3"] });
    // Once the high baseline leaves the window, the drop within 10 minutes is small: re-armed.
    expect(transitions[1]).toMatchObject({ type: "rearm" });
    const rise = stepEpisodes("rapid_change", { amount: 30, span_minutes: 10, direction: "rise" }, armed, series([100, 60, 100], 2 * MIN));
    expect(rise.transitions).toHaveLength(1);
    // The same rise spread over more than the span is no rapid change.
    const slow = stepEpisodes("rapid_change", { amount: 30, span_minutes: 10 }, armed, series([60, 70, 80, 90, 100], 6 * MIN));
    expect(slow.transitions).toEqual([]);
  });

  it("rapid change over a long series equals the brute-force window (rise, drop, either)", () => {
    // A seeded walk with repeated timestamps, so ties at one instant are covered.
    let seed = 7;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const points: Point[] = [];
    for (let i = 0, t = 0, v = 100; i < 3_000; i++) {
      t += rand() < 0.1 ? 0 : Math.floor(rand() * 4) * MIN;
      v += (rand() - 0.5) * 12;
      points.push({ t, v, observationId: `o${i}` });
    }
    for (const direction of ["rise", "drop", "either"] as const) {
      const params = { amount: 15, span_minutes: 20, direction, hysteresis: 2 };
      // Brute force: every earlier reading within the span, recomputed for each reading.
      const expected: string[] = [];
      let firing = false;
      for (const [i, p] of points.entries()) {
        let moved = 0;
        for (const q of points.slice(0, i)) {
          if (q.t < p.t - 20 * MIN || q.t >= p.t) continue;
          const d = direction === "rise" ? p.v - q.v : direction === "drop" ? q.v - p.v : Math.abs(p.v - q.v);
          moved = Math.max(moved, d);
        }
        if (!firing && moved >= 15) {
          firing = true;
          expected.push(`fire@${p.observationId}`);
        } else if (firing && moved < 13) {
          firing = false;
          expected.push(`rearm@${p.observationId}`);
        }
      }
      // Fed in two calls, so the window carried in the state is exercised too.
      const first = stepEpisodes("rapid_change", params, armed, points.slice(0, 1_500));
      const second = stepEpisodes("rapid_change", params, first.state, points.slice(1_500));
      const got = [...first.transitions, ...second.transitions].map((tr) => `${tr.type}@${tr.type === "fire" ? tr.observations[tr.observations.length - 1] : tr.observationId}`);
      expect(got).toEqual(expected);
      expect(expected.length).toBeGreaterThan(10);
    }
  });

  it("defaults hysteresis to 5% of the threshold or amount", () => {
    expect(effectiveHysteresis("high_value", { threshold: 120 })).toBe(6);
    expect(effectiveHysteresis("rapid_change", { amount: 20 })).toBe(1);
    expect(effectiveHysteresis("low_value", { threshold: 90, hysteresis: 0 })).toBe(0);
  });
});

describe("absence verdicts", () => {
  const span = 60 * MIN;
  it("without sync times: silent once the span passed since the last reading", () => {
    expect(absenceVerdict({ spanMs: span, lastReadingAt: 0, now: 30 * MIN })).toEqual({ silent: false, nextCheckAt: span + 1 });
    expect(absenceVerdict({ spanMs: span, lastReadingAt: 0, now: 61 * MIN })).toEqual({ silent: true, reason: "no_data", since: 0 });
  });
  it("a recent sync that brought nothing confirms the gap; a sync not yet past the gap waits", () => {
    expect(absenceVerdict({ spanMs: span, lastReadingAt: 0, lastSyncAt: 70 * MIN, now: 75 * MIN })).toMatchObject({ silent: true, reason: "no_data" });
    // Synced 40 minutes after the last reading, 40 minutes ago: the platform may still deliver the rest.
    const waiting = absenceVerdict({ spanMs: span, lastReadingAt: 0, lastSyncAt: 40 * MIN, now: 80 * MIN });
    expect(waiting).toEqual({ silent: false, nextCheckAt: 80 * MIN + RECHECK_MS });
    // Nothing at all (no reading, no sync) for the span: the device is silent.
    expect(absenceVerdict({ spanMs: span, lastReadingAt: 0, lastSyncAt: 40 * MIN, now: 101 * MIN })).toMatchObject({ silent: true, reason: "no_transmission" });
  });
});

describe("rule checks", () => {
  it("names the field a kind needs or does not use", () => {
    expect(ruleProblems({ kind: "high_value", patient_id: "p", metric: "heart_rate" })).toEqual([{ path: "threshold", message: "Required for a high_value rule" }]);
    expect(ruleProblems({ kind: "data_absence", patient_id: "p", metric: "heart_rate", span_minutes: 60, threshold: 3 })).toEqual([{ path: "threshold", message: "Not used by a data_absence rule" }]);
    expect(ruleProblems({ kind: "score_below", patient_id: "p", metric: "heart_rate", threshold: 3 })[0]?.path).toBe("metric");
    expect(ruleProblems({ kind: "rapid_change", patient_id: "p", metric: "heart_rate", amount: 10, span_minutes: 0 })[0]?.path).toBe("span_minutes");
    expect(ruleProblems({ kind: "data_absence", patient_id: "p", span_minutes: 60 })[0]?.path).toBe("metric");
    expect(ruleProblems({ kind: "data_absence", patient_id: "p", device_id: "d", span_minutes: 60 })).toEqual([]);
  });
  it("refuses a low limit at or above a high one for the same readings", () => {
    const high = { id: "r1", kind: "high_value" as const, patient_id: "p", metric: "heart_rate", threshold: 120 };
    expect(conflictProblems({ kind: "low_value", patient_id: "p", metric: "heart_rate", threshold: 130 }, [high])).toEqual([
      { path: "threshold", message: "Must be below the high_value threshold 120 of rule r1 for the same metric" },
    ]);
    expect(conflictProblems({ kind: "low_value", patient_id: "p", metric: "heart_rate", threshold: 50 }, [high])).toEqual([]);
    expect(conflictProblems({ kind: "low_value", patient_id: "p", metric: "spo2", threshold: 130 }, [high])).toEqual([]);
  });
});
