// Alternating rounds: an operation's rounds combine into one result (percentiles over every
// request, not averaged), and its ratio to the floor is the median of the rounds' ratios.
import { describe, expect, it } from "vitest";
import { type LoadResult, combine, median } from "../../../bench/lib/load";

const round = (latencies: number[], seconds: number, errors = 0): LoadResult => ({
  label: "op",
  requests: latencies.length,
  errors,
  seconds,
  rps: latencies.length / seconds,
  p50: 0,
  p99: 0,
  latencies: [...latencies].sort((a, b) => a - b),
});

describe("combine", () => {
  it("sums requests, errors and time, and takes percentiles over every request of every round", () => {
    const fast = round(Array(99).fill(10), 1);
    const slow = round([...Array(96).fill(20), 500, 500, 500], 2, 1);
    const all = combine("read", [fast, slow]);
    expect(all).toMatchObject({ label: "read", requests: 198, errors: 1, seconds: 3, rps: 66 });
    // The median request is one of the slow round's; the 99th percentile is its outliers, not an average of the rounds'.
    expect(all.p50).toBe(20);
    expect(all.p99).toBe(500);
  });
});

describe("median", () => {
  it("is the middle value, or the mean of the two middle ones", () => {
    expect(median([0.9, 0.5, 0.7])).toBe(0.7);
    expect(median([1.2, 0.6, 0.8, 0.7])).toBeCloseTo(0.75);
    expect(median([0.4])).toBe(0.4);
  });
});
