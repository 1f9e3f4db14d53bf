// Sign-in lockout: after 5 consecutive failures the account is locked for a period that doubles
// with each further failure (1 min, 2 min, 4 min...), at most an hour. Pure, so it is unit tested.

export const FAILURES_BEFORE_LOCK = 5;
const FIRST_LOCK_MS = 60_000;
const MAX_LOCK_MS = 60 * 60_000;

/** How long to lock after the `failures`-th consecutive failure (0: not locked). */
export function lockMs(failures: number): number {
  if (failures < FAILURES_BEFORE_LOCK) return 0;
  return Math.min(FIRST_LOCK_MS * 2 ** (failures - FAILURES_BEFORE_LOCK), MAX_LOCK_MS);
}

/** Seconds until `lockedUntil` (rounded up), or 0 when it is past or unset. */
export function lockedForSeconds(lockedUntil: string | null, now: number): number {
  if (!lockedUntil) return 0;
  return Math.max(0, Math.ceil((Date.parse(lockedUntil) - now) / 1000));
}
