// A refused concurrency slot's expected wait: the mean residual life of the kind's recent holds.
import { describe, expect, it } from "vitest";
import { expectedRemainingMs, UNKNOWN_HOLD_RETRY_MS } from "../../../src/features/tenancy/limits/slot-wait";

describe("expectedRemainingMs", () => {
  it("averages what the holds longer than the elapsed time had left", () => {
    expect(expectedRemainingMs([10_000, 20_000, 40_000], 5_000)).toBe((5_000 + 15_000 + 35_000) / 3);
    // Quick holds say nothing about a run already past them.
    expect(expectedRemainingMs([50, 50, 40_000], 2_000)).toBe(38_000);
  });

  it("expects a holder past every recorded hold to last as long again, and knows nothing without history", () => {
    expect(expectedRemainingMs([50, 60], 12_000)).toBe(12_000);
    expect(expectedRemainingMs([], 1_000)).toBe(UNKNOWN_HOLD_RETRY_MS);
    expect(expectedRemainingMs([], 90_000)).toBe(90_000);
  });
});
