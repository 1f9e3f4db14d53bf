// The subscriptions' side of the FHIR change hook: a Subscription written is synchronised (its
// managed destination made or changed, its row saved, a handshake queued while it is requested);
// every other change is matched against the org's live subscriptions (active.ts, cached), numbered
// per subscription (store.ts) and queued to each matching subscription's destination as one
// notification per event, in commit order (FIFO per destination).
import type { FhirChange } from "../fhir";
import type { OrgContext } from "../../platform/org-context";
import { logger } from "../../platform/observability/log";
import { type LiveSubscription, forgetLive, liveSubscriptions } from "./active";
import { matchesChange } from "./match";
import type { NotificationEvent } from "./notification";
import { eventMessage, fhirBaseOf, statusMessage } from "./messages";
import type { NotificationMessage, SubscriptionOutbound, SubscriptionTarget } from "./outbound";
import { socketText, socketsOf } from "./sockets";
import { SubscriptionStore } from "./store";
import { type SubscriptionSpec, parseSubscription } from "./subscription";

export async function subscriptionsOnChanges(ctx: OrgContext, changes: readonly FhirChange[], outbound: SubscriptionOutbound): Promise<void> {
  const written = changes.filter((c) => c.resourceType === "Subscription");
  for (const change of written) {
    try {
      await syncSubscription(ctx, change, outbound);
    } catch (e) {
      logger(ctx.env).error("subscription sync failed", { subscription: change.id, error: e instanceof Error ? e.message : String(e) });
    }
  }
  if (written.length) forgetLive(ctx);
  const others = changes.filter((c) => c.resourceType !== "Subscription");
  if (others.length === 0) return;
  const live = await liveSubscriptions(ctx);
  if (live.length === 0) return;
  const hits: { sub: LiveSubscription; change: FhirChange }[] = [];
  for (const change of others) for (const sub of live) if (sub.destinationId && matchesChange(sub.spec, change)) hits.push({ sub, change });
  if (hits.length === 0) return;
  const store = new SubscriptionStore(ctx.d1, ctx.orgId);
  const numbers = await store.record(hits.map(({ sub, change }) => ({ subscriptionId: sub.spec.id, occurredAt: change.lastUpdated, focusType: change.resourceType, focusId: change.id, focusVersion: change.versionId, action: change.action })));
  const baseUrl = fhirBaseOf(ctx);
  const byDestination = new Map<string, NotificationMessage[]>();
  hits.forEach(({ sub, change }, i) => {
    const eventNumber = numbers[i]!;
    const event: NotificationEvent = { eventNumber, timestamp: change.lastUpdated, focus: { type: change.resourceType, id: change.id, version: change.versionId }, action: change.action, resource: change.resource };
    const list = byDestination.get(sub.destinationId!) ?? [];
    list.push(eventMessage(sub.spec, baseUrl, event, eventNumber));
    byDestination.set(sub.destinationId!, list);
  });
  await Promise.all([...byDestination].map(([destinationId, messages]) => outbound.enqueue(ctx, destinationId, messages)));
}

const targetOf = (spec: SubscriptionSpec): SubscriptionTarget => (spec.channel === "websocket" ? { kind: "websocket", subscription_id: spec.id } : { kind: "url", url: spec.endpoint! });

const nextHeartbeat = (spec: SubscriptionSpec, from = Date.now()) => (spec.heartbeatSeconds ? new Date(from + spec.heartbeatSeconds * 1000).toISOString() : null);

/** A Subscription was written: its destination and row follow it; a requested one gets a handshake (rest-hook; a websocket's comes when a client binds). */
async function syncSubscription(ctx: OrgContext, change: FhirChange, outbound: SubscriptionOutbound): Promise<void> {
  const owner = { kind: "subscription" as const, id: change.id };
  const store = new SubscriptionStore(ctx.d1, ctx.orgId);
  if (change.action === "delete") {
    await socketsOf(ctx).unbindAll(ctx.orgId, change.id);
    await outbound.removeManagedDestination(ctx, owner);
    await store.remove(change.id);
    return;
  }
  const parsed = parseSubscription(change.resource, change.id);
  if (!parsed.ok) {
    // Refused on write (check.ts); one stored before the check existed is not served.
    await outbound.removeManagedDestination(ctx, owner);
    await store.remove(change.id);
    return;
  }
  const spec = parsed.spec;
  if (spec.channel !== "websocket" || spec.status === "off") await socketsOf(ctx).unbindAll(ctx.orgId, spec.id);
  const destination = await outbound.saveManagedDestination(ctx, owner, {
    name: `Subscription/${spec.id}`,
    target: targetOf(spec),
    ordering: "fifo",
    ...(spec.timeoutSeconds ? { timeout_ms: spec.timeoutSeconds * 1000 } : {}),
    http: { method: "POST", headers: spec.headers },
    state: spec.status === "off" ? "paused" : "active",
  });
  await store.save(spec.id, { resource: JSON.stringify(change.resource), status: spec.status, destinationId: destination.id, heartbeatSeconds: spec.heartbeatSeconds ?? null, nextHeartbeatAt: spec.status === "off" ? null : nextHeartbeat(spec) });
  if (spec.status === "requested" && spec.channel === "rest-hook") {
    const row = await store.get(spec.id);
    const id = `${spec.id}:handshake:${change.versionId}`;
    await outbound.enqueue(ctx, destination.id, [statusMessage(spec, fhirBaseOf(ctx), "handshake", row?.eventCount ?? 0, id)]);
    await store.setHandshake(spec.id, id);
  }
}

/** Sends the heartbeats due for the org's subscriptions `ids` (rest-hook: queued; websocket: pushed to the bound sockets) and schedules their next ones. */
export async function sendHeartbeats(ctx: OrgContext, ids: readonly string[], outbound: SubscriptionOutbound, now = new Date()): Promise<number> {
  const store = new SubscriptionStore(ctx.d1, ctx.orgId);
  let sent = 0;
  for (const id of ids) {
    const row = await store.get(id);
    if (!row?.destinationId) continue;
    const parsed = parseSubscription(JSON.parse(row.resource), id);
    if (!parsed.ok || !parsed.spec.heartbeatSeconds) {
      await store.setNextHeartbeat(id, null);
      continue;
    }
    const spec = { ...parsed.spec, status: row.status as SubscriptionSpec["status"] };
    const heartbeat = statusMessage(spec, fhirBaseOf(ctx), "heartbeat", row.eventCount, `${id}:heartbeat:${now.toISOString()}`);
    // A websocket's heartbeat goes straight to the sockets bound now (a late one is worth nothing); a rest-hook's through its queue.
    if (spec.channel === "websocket") await socketsOf(ctx).push(ctx.orgId, id, socketText(id, heartbeat.body));
    else await outbound.enqueue(ctx, row.destinationId, [heartbeat]);
    await store.setNextHeartbeat(id, nextHeartbeat(spec, now.getTime()));
    sent++;
  }
  return sent;
}
