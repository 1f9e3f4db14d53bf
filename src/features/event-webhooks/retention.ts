// How long raised events are kept for replay by time range: EVENT_RETENTION_DAYS. Older events
// are deleted by the publishing path itself, at most once per PURGE_EVERY_MS per org and isolate
// and PURGE_BATCH rows at a time, so the table stays bounded without a job of its own. (Delivery
// attempts live in the destination queue, which keeps its own history.)
import { logger } from "../../platform/observability/log";
import type { OrgContext } from "../../platform/org-context";
import { WebhookStore } from "./store";

export const EVENT_RETENTION_DAYS = 30;
const PURGE_EVERY_MS = 3_600_000;
const PURGE_BATCH = 500;

const lastPurge = new Map<string, number>();

export async function purgeOldEventsNow(ctx: OrgContext, now = Date.now()): Promise<void> {
  const key = `${ctx.placement.shard}/${ctx.orgId}`;
  if (now - (lastPurge.get(key) ?? 0) < PURGE_EVERY_MS) return;
  lastPurge.set(key, now);
  if (lastPurge.size > 10_000) lastPurge.delete(lastPurge.keys().next().value as string);
  const before = new Date(now - EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  await new WebhookStore(ctx.db).purgeEvents(ctx.orgId, before, PURGE_BATCH).catch((e: unknown) => {
    logger(ctx.env).warn("webhook event purge failed", { org: ctx.orgId, error_message: String(e) });
  });
}
