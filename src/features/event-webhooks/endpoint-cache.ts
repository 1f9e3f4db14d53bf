// The org's enabled endpoints as publishing needs them (id, subscriptions, destination), cached
// in the isolate for ENDPOINT_CACHE_MS: an event raised in a busy org costs no query most of the
// time. Writes through this isolate forget the org's entry at once; another isolate sees a
// change within ENDPOINT_CACHE_MS.
import type { OrgContext } from "../../platform/org-context";
import { WebhookStore } from "./store";

export const ENDPOINT_CACHE_MS = 30_000;

export interface LiveEndpoint {
  id: string;
  eventTypes: string[];
  destinationId: string;
}

const cache = new Map<string, { at: number; endpoints: Promise<LiveEndpoint[]> }>();
const keyOf = (ctx: OrgContext) => `${ctx.placement.shard}/${ctx.orgId}`;

export function liveEndpoints(ctx: OrgContext, now = Date.now()): Promise<LiveEndpoint[]> {
  const key = keyOf(ctx);
  const hit = cache.get(key);
  if (hit && now - hit.at < ENDPOINT_CACHE_MS) return hit.endpoints;
  const endpoints = new WebhookStore(ctx.db)
    .enabled(ctx.orgId)
    .then((rows) => rows.flatMap((r) => (r.destinationId ? [{ id: r.id, eventTypes: r.eventTypes, destinationId: r.destinationId }] : [])));
  cache.set(key, { at: now, endpoints });
  // A failed read is not cached.
  endpoints.catch(() => cache.get(key)?.endpoints === endpoints && cache.delete(key));
  if (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
  return endpoints;
}

/** After a write of the org's endpoints. */
export function forgetEndpoints(ctx: OrgContext): void {
  cache.delete(keyOf(ctx));
}
