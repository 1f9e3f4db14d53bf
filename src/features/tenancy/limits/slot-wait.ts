// How long a concurrency slot's holder is expected to keep it, for a refused slot's Retry-After
// (OrgGate.acquireSlot): estimated from the kind's recent hold times, pure so it is testable alone.

/** Retry hint while no slot of a kind has been released yet, so nothing says how long one lasts. */
export const UNKNOWN_HOLD_RETRY_MS = 30_000;

/**
 * How long a holder that has held its slot `elapsedMs` is expected to keep it, from the kind's
 * recent hold times: the mean residual life, the mean of (hold − elapsed) over the holds that
 * lasted longer than it has so far (a kind's quick holds say nothing about one already past
 * them). A holder that has outlived every recorded hold is expected to last about as long again,
 * so a short history never answers "any moment" for a long run; with no history at all,
 * UNKNOWN_HOLD_RETRY_MS (or the elapsed time, when longer).
 */
export function expectedRemainingMs(holdsMs: readonly number[], elapsedMs: number): number {
  if (holdsMs.length === 0) return Math.max(UNKNOWN_HOLD_RETRY_MS, elapsedMs);
  const longer = holdsMs.filter((h) => h > elapsedMs);
  if (longer.length === 0) return elapsedMs;
  return longer.reduce((sum, h) => sum + (h - elapsedMs), 0) / longer.length;
}
