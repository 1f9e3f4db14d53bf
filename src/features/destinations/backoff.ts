// When a failed message is tried again: exponential backoff with "equal jitter" (half the delay
// fixed, half random), so retries of many destinations spread out yet each still backs off, up to
// the policy's ceiling; past the horizon counted from the first attempt, the message is dead.
import type { RetryPolicy } from "./model";

/** The delay before attempt `attempts + 1`, after `attempts` failed ones (1 → about initial_delay_ms). */
export function retryDelayMs(policy: RetryPolicy, attempts: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 40);
  const ceiling = Math.min(policy.max_delay_ms, policy.initial_delay_ms * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** When to try again, or null when that would fall past the horizon (the message is dead-lettered). */
export function nextAttemptAt(policy: RetryPolicy, attempts: number, firstAttemptAt: number, now: number, random?: () => number): number | null {
  const at = now + retryDelayMs(policy, attempts, random);
  return at - firstAttemptAt > policy.horizon_hours * 3_600_000 ? null : at;
}
