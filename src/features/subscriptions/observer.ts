// The destination queue's owner observer for subscriptions: after each attempt of a
// Subscription's destination, its status follows the rules of status.ts. The service's own
// status writes go to the store without the change hook (they notify nobody, and do not
// re-synchronise the destination), then the subscription's row and this isolate's cache follow.
import type { AttemptObservation } from "../destinations";
import type { OrgContext } from "../../platform/org-context";
import { logger } from "../../platform/observability/log";
import { forgetLive } from "./active";
import { subscriptionsPrincipal } from "./principal";
import { type AttemptOutcome, statusAfter } from "./status";
import { SubscriptionStore } from "./store";
import type { SubscriptionStatus } from "./subscription";

/** What the queue reports of one attempt, as far as subscriptions read it. */
export type SubscriptionAttempt = { destination: Pick<AttemptObservation["destination"], "owner"> } & { attempt: { result: Pick<AttemptObservation["attempt"]["result"], "ok" | "status" | "failure"> } } & Pick<AttemptObservation, "next" | "failure_streak">;

export async function subscriptionAttemptObserver(ctx: OrgContext, observation: SubscriptionAttempt): Promise<void> {
  const owner = observation.destination.owner;
  if (owner?.kind !== "subscription") return;
  try {
    const { result } = observation.attempt;
    const message = result.failure ? `${result.failure.class}: ${result.failure.message}` : result.status ? `HTTP ${result.status}` : undefined;
    await applyOutcome(ctx, owner.id, { next: observation.next, failureStreak: observation.failure_streak, ...(message ? { message } : {}) });
  } catch (e) {
    logger(ctx.env).error("subscription status update failed", { subscription: owner.id, error: e instanceof Error ? e.message : String(e) });
  }
}

/** Applies an attempt's outcome to the Subscription (status and error), when it changes them. */
export async function applyOutcome(ctx: OrgContext, id: string, outcome: AttemptOutcome): Promise<SubscriptionStatus | undefined> {
  const store = new SubscriptionStore(ctx.d1, ctx.orgId);
  const row = await store.get(id);
  if (!row) return undefined;
  const current = JSON.parse(row.resource) as { status?: SubscriptionStatus; error?: string };
  const change = statusAfter(row.status as SubscriptionStatus, current.error, outcome);
  if (!change) return undefined;
  return setStatus(ctx, id, change.status, change.error);
}

/** Writes the Subscription's status (and error, or clears it) as the service, without notifying anyone. */
export async function setStatus(ctx: OrgContext, id: string, status: SubscriptionStatus, error?: string): Promise<SubscriptionStatus | undefined> {
  const fhir = ctx.fhir(subscriptionsPrincipal(ctx.orgId), { onChange: undefined });
  const stored = (await fhir.read("Subscription", id)) as { id: string; resourceType: string; status?: string; error?: string; meta?: { versionId?: string } };
  if (stored.status === "off") return undefined;
  const { error: _previous, ...rest } = stored;
  const next = { ...rest, status, ...(error ? { error } : {}) };
  const written = await fhir.update(next as typeof stored, stored.meta?.versionId ? { ifMatch: `W/"${stored.meta.versionId}"` } : {});
  await new SubscriptionStore(ctx.d1, ctx.orgId).setStatus(id, JSON.stringify(written.resource), status);
  forgetLive(ctx);
  return status;
}
