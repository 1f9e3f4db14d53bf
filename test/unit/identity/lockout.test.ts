// The lockout schedule: nothing for the first four failures, then 1 min doubling, capped at an hour.
import { describe, expect, it } from "vitest";
import { lockedForSeconds, lockMs } from "../../../src/features/identity/lockout";

describe("sign-in lockout", () => {
  it("locks from the fifth consecutive failure, doubling, at most an hour", () => {
    expect([1, 2, 3, 4].map(lockMs)).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7].map(lockMs)).toEqual([60_000, 120_000, 240_000]);
    expect(lockMs(12)).toBe(3_600_000);
    expect(lockMs(50)).toBe(3_600_000);
  });

  it("answers the seconds left, rounded up, or 0", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(lockedForSeconds(null, now)).toBe(0);
    expect(lockedForSeconds("2026-01-01T00:00:30.500Z", now)).toBe(31);
    expect(lockedForSeconds("2025-12-31T23:59:00Z", now)).toBe(0);
  });
});
