// The webhook event rows: record a verified delivery once, move it through its states, list them.
import { and, count, desc, eq } from "drizzle-orm";
import type { OrgData } from "../../../../platform/org-data";
import { type DeviceWebhookEventRow, deviceWebhookEvents } from "./tables";

export interface DeliveryRecord {
  readonly id: string;
  readonly kind: string;
  readonly bodySha256: string;
  readonly body: string;
  readonly receivedAt: string;
}

export type Recorded = "new" | "known" | "replay";

// Both unique keys can conflict for a redelivery; the WHERE keeps that from counting as a replay.
const RECORD_DELIVERY = `
  INSERT INTO device_webhook_events (org_id, id, kind, body_sha256, body, status, attempts, readings, deleted, replays, received_at)
  VALUES (?, ?, ?, ?, ?, 'queued', 0, 0, 0, 0, ?)
  ON CONFLICT (org_id, id) DO NOTHING
  ON CONFLICT (org_id, kind, body_sha256) DO UPDATE SET replays = replays + 1 WHERE device_webhook_events.id <> excluded.id
  RETURNING id`;

/**
 * Records verified deliveries under their ids, in one D1 batch (one round trip, one transaction):
 * `new` the first time; `known` when the id is already recorded (a queue redelivery: carry on
 * with the row); `replay` when the same body was recorded under another id (the vendor sent it
 * again: counted there, nothing else). In the order given.
 */
export async function recordDeliveries(data: OrgData, deliveries: readonly DeliveryRecord[]): Promise<Recorded[]> {
  if (!deliveries.length) return [];
  const statement = data.d1.prepare(RECORD_DELIVERY);
  const results = await data.d1.batch<{ id: string }>(deliveries.map((d) => statement.bind(data.orgId, d.id, d.kind, d.bodySha256, d.body, d.receivedAt)));
  return deliveries.map((d, i) => {
    const row = results[i]?.results[0];
    if (!row) return "known";
    return row.id === d.id ? "new" : "replay";
  });
}

export async function recordDelivery(data: OrgData, d: DeliveryRecord): Promise<Recorded> {
  return (await recordDeliveries(data, [d]))[0]!;
}

export async function getEvent(data: OrgData, id: string): Promise<DeviceWebhookEventRow | undefined> {
  return data.db.select().from(deviceWebhookEvents).where(and(eq(deviceWebhookEvents.orgId, data.orgId), eq(deviceWebhookEvents.id, id))).get();
}

export type EventUpdate = Partial<Pick<DeviceWebhookEventRow, "status" | "attempts" | "readings" | "deleted" | "rejected" | "updated" | "rejections" | "error" | "processedAt">>;

const eventUpdate = (data: OrgData, id: string, update: EventUpdate) =>
  data.db.update(deviceWebhookEvents).set(update).where(and(eq(deviceWebhookEvents.orgId, data.orgId), eq(deviceWebhookEvents.id, id)));

export async function updateEvent(data: OrgData, id: string, update: EventUpdate): Promise<void> {
  await eventUpdate(data, id, update).run();
}

/** Several rows' updates in one D1 batch. */
export async function updateEvents(data: OrgData, updates: readonly { id: string; update: EventUpdate }[]): Promise<void> {
  const [first, ...rest] = updates.map(({ id, update }) => eventUpdate(data, id, update));
  if (first) await data.db.batch([first, ...rest]);
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
