// The minute cron, shard by shard: start the deployed pipelines whose schedule triggers are
// due, and index the AuditEvents of organizations that went quiet before their log reached a
// flush, and look at threshold-alert rules whose absence check is due. Organizations being
// moved are left alone (their writes are paused).
import { logger } from "../platform/observability/log";
import { contextFor } from "./context";
import { database } from "../platform/db/client";
import type { Env } from "../platform/env";
import { flushAllAuditLogs } from "../features/fhir/audit-log";
import { orgsOn, placementOf } from "../platform/directory";
import { controlDatabase, shardDatabase, shardNames } from "../platform/shards";
import { type DispatchResult, runSchedules } from "../features/pipelines/triggers";
import { type LastSyncOf, runShardAlertChecks } from "../features/alerts/absence-check";
import { lastSyncedThrough } from "../features/devices/store/sync-logs";
import { orgsWithIntegration } from "../features/devices/store/integrations";
import { renewingKinds, renewSubscriptions } from "../features/devices/platforms/webhooks/renew-subscriptions";
import { devicePlatformsOf } from "./device-platform-services";
import { dueHeartbeats, sendHeartbeats, type SubscriptionOutbound } from "../features/subscriptions";
import { SUBSCRIPTION_OUTBOUND } from "./fhir-changes";

const AUDIT_FLUSH_BUDGET_MS = 20_000;
/** Vendor webhook subscriptions (Oura) are checked once an hour, at this minute. */
export const SUBSCRIPTION_RENEWAL_MINUTE = 7;

/**
 * What the cron started (each shard's due triggers); audit flushing and alert checks (absence of
 * data, alerts whose publication failed) answer nothing. `lastSyncOf`: the devices' last syncs.
 */
/** `lastSyncOf`: how far the device syncs have fetched each device (absence alerts wait for a sync to cover a gap). */
export async function runScheduledWork(env: Env, at: Date, lastSyncOf: LastSyncOf = lastSyncedThrough): Promise<DispatchResult[]> {
  const deadline = Date.now() + AUDIT_FLUSH_BUDGET_MS;
  const started = await Promise.all(
    shardNames(env).map(async (shard) => {
      const d1 = shardDatabase(env, shard);
      // Only orgs the directory places here, and not being moved, run from this shard.
      const dataFor = async (orgId: string) => {
        const placement = await placementOf(controlDatabase(env), orgId);
        return placement && placement.shard === shard && placement.movingTo === null ? contextFor(env, placement) : undefined;
      };
      const paused = new Set((await orgsOn(controlDatabase(env), shard)).filter((p) => p.movingTo !== null).map((p) => p.orgId));
      const [results] = await Promise.all([
        runSchedules(database(d1), at, dataFor),
        flushAllAuditLogs(d1, deadline, paused),
        runShardAlertChecks(database(d1), at, dataFor, lastSyncOf, logger(env)),
        at.getUTCMinutes() === SUBSCRIPTION_RENEWAL_MINUTE ? renewShardSubscriptions(database(d1), at, dataFor, renewingKinds(devicePlatformsOf(env))) : undefined,
        sendShardHeartbeats(d1, at, dataFor, SUBSCRIPTION_OUTBOUND),
      ]);
      return results;
    }),
  );
  return started.flat();
}

/** Every org on the shard with a platform whose webhook subscriptions expire (`kinds`): renew those near expiry. */
async function renewShardSubscriptions(db: ReturnType<typeof database>, at: Date, dataFor: (orgId: string) => Promise<ReturnType<typeof contextFor> | undefined>, kinds: readonly string[]): Promise<void> {
  for (const orgId of await orgsWithIntegration(db, kinds)) {
    const data = await dataFor(orgId);
    if (data) await renewSubscriptions(data, at);
  }
}

/** FHIR Subscriptions' heartbeats due on the shard (backport-heartbeat-period, to the minute): one notification each, and the next one scheduled. */
export async function sendShardHeartbeats(d1: D1Database, at: Date, dataFor: (orgId: string) => Promise<ReturnType<typeof contextFor> | undefined>, outbound: SubscriptionOutbound): Promise<number> {
  const due = await dueHeartbeats(d1, at.toISOString());
  const byOrg = new Map<string, string[]>();
  for (const d of due) byOrg.set(d.orgId, [...(byOrg.get(d.orgId) ?? []), d.subscriptionId]);
  let sent = 0;
  for (const [orgId, ids] of byOrg) {
    const ctx = await dataFor(orgId);
    if (ctx) sent += await sendHeartbeats(ctx, ids, outbound, at);
  }
  return sent;
}
