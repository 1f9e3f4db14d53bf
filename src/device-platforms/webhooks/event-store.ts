// The webhook event rows: record a verified delivery once, move it through its states, list them.
import { and, count, desc, eq } from "drizzle-orm";
import { isUniqueViolation } from "../../platform/db/errors";
import type { OrgData } from "../../platform/org-data";
import { type DeviceWebhookEventRow, deviceWebhookEvents } from "./tables";

/** The new event's id, or undefined when the same body was already received (a replay). */
export async function recordDelivery(data: OrgData, kind: string, bodySha256: string, body: string, now: Date): Promise<string | undefined> {
  const id = crypto.randomUUID();
  try {
    await data.db
      .insert(deviceWebhookEvents)
      .values({ orgId: data.orgId, id, kind, bodySha256, body, status: "queued", attempts: 0, readings: 0, deleted: 0, receivedAt: now.toISOString() })
      .run();
    return id;
  } catch (e) {
    if (isUniqueViolation(e)) return undefined;
    throw e;
  }
}

export async function getEvent(data: OrgData, id: string): Promise<DeviceWebhookEventRow | undefined> {
  return data.db.select().from(deviceWebhookEvents).where(and(eq(deviceWebhookEvents.orgId, data.orgId), eq(deviceWebhookEvents.id, id))).get();
}

export type EventUpdate = Partial<Pick<DeviceWebhookEventRow, "status" | "attempts" | "readings" | "deleted" | "error" | "processedAt">>;

export async function updateEvent(data: OrgData, id: string, update: EventUpdate): Promise<void> {
  await data.db.update(deviceWebhookEvents).set(update).where(and(eq(deviceWebhookEvents.orgId, data.orgId), eq(deviceWebhookEvents.id, id))).run();
}

export async function listEvents(data: OrgData, filter: { kind?: string; status?: string }, limit: number, offset: number): Promise<{ rows: DeviceWebhookEventRow[]; total: number }> {
  const where = and(
    eq(deviceWebhookEvents.orgId, data.orgId),
    filter.kind ? eq(deviceWebhookEvents.kind, filter.kind) : undefined,
    filter.status ? eq(deviceWebhookEvents.status, filter.status) : undefined,
  );
  const [rows, totals] = await Promise.all([
    data.db.select().from(deviceWebhookEvents).where(where).orderBy(desc(deviceWebhookEvents.receivedAt), desc(deviceWebhookEvents.id)).limit(limit).offset(offset).all(),
    data.db.select({ n: count() }).from(deviceWebhookEvents).where(where).get(),
  ]);
  return { rows, total: totals?.n ?? 0 };
}
