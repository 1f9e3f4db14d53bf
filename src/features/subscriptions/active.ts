// The isolate's cache of each organization's live subscriptions (requested, active or error), so
// the FHIR change hook costs one D1 read per organization per ACTIVE_TTL_MS at most, and nothing
// else when the organization has none. A Subscription written through this isolate (the hook sees
// it, the status bookkeeping writes it) drops the entry at once; other isolates see the change
// within ACTIVE_TTL_MS (docs/subscriptions.md: the delay before a new subscription is served everywhere).
import type { OrgData } from "../../platform/org-data";
import { SubscriptionStore } from "./store";
import { type SubscriptionSpec, parseSubscription } from "./subscription";

/** How long an isolate trusts its list of an organization's subscriptions. */
export const ACTIVE_TTL_MS = 10_000;

export interface LiveSubscription {
  spec: SubscriptionSpec;
  destinationId: string | null;
  eventCount: number;
}

const LIVE = new Set(["requested", "active", "error"]);
const cache = new Map<string, { at: number; subs: Promise<LiveSubscription[]> }>();
const keyOf = (data: Pick<OrgData, "shard" | "orgId">) => `${data.shard}\u0000${data.orgId}`;

export function liveSubscriptions(data: OrgData, now = Date.now()): Promise<LiveSubscription[]> {
  const key = keyOf(data);
  const hit = cache.get(key);
  if (hit && now - hit.at < ACTIVE_TTL_MS) return hit.subs;
  const subs = load(data);
  cache.set(key, { at: now, subs });
  subs.catch(() => cache.delete(key));
  return subs;
}

async function load(data: OrgData): Promise<LiveSubscription[]> {
  const rows = await new SubscriptionStore(data.d1, data.orgId).all();
  return rows.flatMap((row) => {
    if (!LIVE.has(row.status)) return [];
    const parsed = parseSubscription(JSON.parse(row.resource), row.subscriptionId);
    if (!parsed.ok) return [];
    if (parsed.spec.end && Date.parse(parsed.spec.end) < Date.now()) return [];
    return [{ spec: { ...parsed.spec, status: row.status as SubscriptionSpec["status"] }, destinationId: row.destinationId, eventCount: row.eventCount }];
  });
}

/** Drops the isolate's entry for the org (a Subscription of it was written). */
export function forgetLive(data: Pick<OrgData, "shard" | "orgId">): void {
  cache.delete(keyOf(data));
}
