// What a Subscription's status becomes after a delivery attempt (the destination queue's owner
// observer, observer.ts, applies it): requested or error → active after a delivered notification
// (the handshake first); error, with the failure as `error`, once ERROR_STREAK attempts in a row
// have failed, or at once when the queue dead-letters one; off stays off (the service never turns
// a subscription on or off of itself).
import type { SubscriptionStatus } from "./subscription";

/** Consecutive failed attempts that put a subscription in error (docs/subscriptions.md). */
export const ERROR_STREAK = 3;

export interface AttemptOutcome {
  next: "delivered" | "retry" | "dead";
  failureStreak: number;
  message?: string;
}

/** The status and error to store, or undefined when nothing changes. */
export function statusAfter(current: SubscriptionStatus, currentError: string | undefined, outcome: AttemptOutcome): { status: SubscriptionStatus; error?: string } | undefined {
  if (current === "off") return undefined;
  if (outcome.next === "delivered") return current === "active" && !currentError ? undefined : { status: "active" };
  if (outcome.failureStreak < ERROR_STREAK && outcome.next !== "dead") return undefined;
  const error = outcome.message ?? "delivery failed";
  return current === "error" && currentError === error ? undefined : { status: "error", error };
}
