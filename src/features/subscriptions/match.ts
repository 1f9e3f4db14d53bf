// Whether a committed change is an event of a subscription: R4 criteria matched on the changed
// resource, or a Backport topic's trigger with every filter of the focus's type (docs/subscriptions.md "Matching").
import { type FhirChange, matchesCriteria as matches } from "../fhir";
import type { SubscriptionSpec } from "./subscription";

/** Whether a change is an event of the subscription: its criteria match, or its topic triggers and every filter of the focus's type matches. */
export function matchesChange(spec: SubscriptionSpec, change: FhirChange): boolean {
  if (spec.kind === "criteria") return !!spec.criteria && spec.criteria.resourceType === change.resourceType && matches(spec.criteria, change.resource);
  const topic = spec.topic!;
  if (!topic.resourceTypes.includes(change.resourceType) || !topic.triggers(change)) return false;
  if (spec.filters.length === 0) return true;
  const mine = spec.filters.filter((f) => f.resourceType === change.resourceType);
  return mine.length > 0 && mine.every((f) => matches(f, change.resource));
}
