// What happens after the FHIR store commits writes (the store's change hook, FhirStoreOptions.onChange):
// one function, fhirChanged, that the org context's `fhir` factory passes to every store. Each
// listener gets the commit's changes in order; a listener's failure is logged and stops neither
// the others nor the write. Add a listener here (the customer webhooks' `fhir.<Type>.created|
// updated|deleted` events belong here too).
import type { FhirChange } from "../features/fhir";
import { type SubscriptionOutbound, subscriptionsOnChanges } from "../features/subscriptions";
import { logger } from "../platform/observability/log";
import type { OrgContext } from "../platform/org-context";

/**
 * The destination queues subscriptions deliver through (features/destinations: saveManagedDestination,
 * removeManagedDestination, enqueue). Undefined until the destinations core is wired here: until
 * then Subscriptions are stored and checked, and nothing is notified.
 */
export const SUBSCRIPTION_OUTBOUND: SubscriptionOutbound | undefined = undefined;

type Listener = (ctx: OrgContext, changes: readonly FhirChange[]) => Promise<void>;

const LISTENERS: readonly { name: string; run: Listener }[] = [
  ...(SUBSCRIPTION_OUTBOUND ? [{ name: "subscriptions", run: (ctx: OrgContext, changes: readonly FhirChange[]) => subscriptionsOnChanges(ctx, changes, SUBSCRIPTION_OUTBOUND!) }] : []),
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
