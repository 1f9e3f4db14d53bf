// What happens after the FHIR store commits writes (the store's change hook, FhirStoreOptions.onChange):
// one function, fhirChanged, that the org context's `fhir` factory passes to every store. Each
// listener gets the commit's changes in order; a listener's failure is logged and stops neither
// the others nor the write. Add a listener here (the customer webhooks' `fhir.<Type>.created|
// updated|deleted` events belong here too).
import { enqueue, removeManagedDestination, saveManagedDestination } from "../features/destinations";
import { fhirChangeEvent } from "../features/event-webhooks";
import type { FhirChange } from "../features/fhir";
import { type SubscriptionOutbound, subscriptionsOnChanges } from "../features/subscriptions";
import { logger } from "../platform/observability/log";
import type { OrgContext } from "../platform/org-context";

/** The destination queues subscriptions deliver through (features/destinations). */
export const SUBSCRIPTION_OUTBOUND: SubscriptionOutbound = { saveManagedDestination, removeManagedDestination, enqueue };

type Listener = (ctx: OrgContext, changes: readonly FhirChange[]) => Promise<void>;

const LISTENERS: readonly { name: string; run: Listener }[] = [
  { name: "subscriptions", run: (ctx, changes) => subscriptionsOnChanges(ctx, changes, SUBSCRIPTION_OUTBOUND) },
  // fhir.<Type>.created|updated|deleted for customer webhooks (docs/webhooks.md), at the change's own time.
  { name: "webhooks", run: (ctx, changes) => ctx.publish(changes.map((c) => fhirChangeEvent(c, c.lastUpdated))) },
];

/** The store's change hook for `ctx`'s organization (src/main/context.ts passes it to every store). */
export async function fhirChanged(ctx: OrgContext, changes: readonly FhirChange[], listeners = LISTENERS): Promise<void> {
  await Promise.all(
    listeners.map(async (l) => {
      try {
        await l.run(ctx, changes);
      } catch (e) {
        logger(ctx.env).error("fhir change listener failed", { listener: l.name, error: e instanceof Error ? e.message : String(e) });
      }
    }),
  );
}
