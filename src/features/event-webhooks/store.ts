// Reads and writes of the webhook tables on the org's shard.
import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, or, type SQL } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type WebhookEndpointRow, type WebhookEventRow, webhookEndpoints, webhookEvents } from "./tables";

export type NewEndpoint = typeof webhookEndpoints.$inferInsert;
export type NewEvent = typeof webhookEvents.$inferInsert;

/** Rows per insert: D1 binds at most 100 parameters per query, and an event has 6 columns. */
const EVENTS_PER_INSERT = 16;

export class WebhookStore {
  constructor(private readonly db: Database) {}

  get(orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return this.db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id))).get();
  }

  async list(orgId: string, limit: number, offset: number) {
    const where = eq(webhookEndpoints.orgId, orgId);
    const [rows, total] = await Promise.all([
      this.db.select().from(webhookEndpoints).where(where).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(webhookEndpoints).where(where),
    ]);
    return { rows, total: total[0]?.n ?? 0 };
  }

  /** The enabled endpoints (what publishing fans out to). */
  enabled(orgId: string): Promise<WebhookEndpointRow[]> {
    return this.db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.enabled, true)));
  }

  async insert(row: NewEndpoint): Promise<WebhookEndpointRow> {
    await this.db.insert(webhookEndpoints).values(row);
    return (await this.get(row.orgId, row.id)) as WebhookEndpointRow;
  }

  async update(orgId: string, id: string, set: Partial<NewEndpoint>): Promise<WebhookEndpointRow | undefined> {
    await this.db
      .update(webhookEndpoints)
      .set({ ...set, updatedAt: new Date().toISOString() })
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)));
    return this.get(orgId, id);
  }

  /** Disables an enabled endpoint; false when it was not enabled (another attempt disabled it first). */
  async disable(orgId: string, id: string, reason: string, at: string): Promise<boolean> {
    const done = await this.db
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: reason, disabledAt: at, updatedAt: at })
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id), eq(webhookEndpoints.enabled, true)))
      .returning({ id: webhookEndpoints.id });
    return done.length > 0;
  }

  async delete(orgId: string, id: string): Promise<void> {
    await this.db.delete(webhookEndpoints).where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)));
  }

  /** Records events (an event raised twice is recorded once). */
  async recordEvents(rows: NewEvent[]): Promise<void> {
    for (let i = 0; i < rows.length; i += EVENTS_PER_INSERT) {
      await this.db.insert(webhookEvents).values(rows.slice(i, i + EVENTS_PER_INSERT)).onConflictDoNothing();
    }
  }

  event(orgId: string, id: string): Promise<WebhookEventRow | undefined> {
    return this.db.select().from(webhookEvents).where(and(eq(webhookEvents.orgId, orgId), eq(webhookEvents.id, id))).get();
  }

  /** Events with occurred_at in [from, to], oldest first, a page at a time after `after` (occurred_at, id). */
  eventsBetween(orgId: string, from: string, to: string, limit: number, after?: { occurredAt: string; id: string }, types?: string[]): Promise<WebhookEventRow[]> {
    const parts: SQL[] = [eq(webhookEvents.orgId, orgId), gte(webhookEvents.occurredAt, from), lte(webhookEvents.occurredAt, to)];
    if (types?.length) parts.push(inArray(webhookEvents.type, types));
    const where = after
      ? and(...parts, or(gt(webhookEvents.occurredAt, after.occurredAt), and(eq(webhookEvents.occurredAt, after.occurredAt), gt(webhookEvents.id, after.id))))
      : and(...parts);
    return this.db.select().from(webhookEvents).where(where).orderBy(asc(webhookEvents.occurredAt), asc(webhookEvents.id)).limit(limit);
  }

  /** Forgets events that occurred before `before`, at most `limit` of them. */
  async purgeEvents(orgId: string, before: string, limit: number): Promise<number> {
    const old = await this.db
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orgId, orgId), lt(webhookEvents.occurredAt, before)))
      .limit(limit);
    if (!old.length) return 0;
    await this.db.delete(webhookEvents).where(and(eq(webhookEvents.orgId, orgId), inArray(webhookEvents.id, old.map((o) => o.id))));
    return old.length;
  }
}
