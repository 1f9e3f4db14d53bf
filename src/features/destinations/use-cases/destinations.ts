// Destinations: the operator's CRUD and actions, the enqueue other features and pipelines call,
// and the destinations features manage for their own resources (Subscriptions, webhook endpoints).
// The D1 row says where and how to deliver; the destination's Durable Object holds its messages.
import { hourStarts } from "../../../platform/db/hourly";
import { orgObject } from "../../../platform/durable-objects/object-names";
import { ApiError, notFound } from "../../../platform/errors";
import type { OrgContext } from "../../../platform/org-context";
import type { OperatorAction } from "../destination-queue";
import type { Attempt, DeliveryTarget, Destination, DestinationOwner, MessageState, OutboundMessage, QueuedMessage } from "../model";
import type { HourActivity, QueueFigures } from "../queue-store";
import { type DestinationInput, DestinationStore } from "../store";
import type { DestinationRow } from "../tables";

type Owner = NonNullable<DestinationOwner>;

const queueOf = (ctx: OrgContext, destinationId: string) => orgObject(ctx.env.DESTINATION_QUEUE, ctx.orgId, destinationId);

async function rowOf(ctx: OrgContext, id: string): Promise<DestinationRow> {
  const row = await new DestinationStore(ctx).get(id);
  if (!row) throw notFound(`Destination ${id} not found`, "DESTINATION_NOT_FOUND");
  return row;
}

/** A target must point somewhere this org may deliver, as its kind's transport judges (its own connector or bridge, a URL the guard allows). */
async function checkTarget(ctx: OrgContext, target: DeliveryTarget): Promise<void> {
  const problem = await ctx.deliveryTransports[target.kind].checkTarget?.(ctx, target);
  if (problem) throw problem;
}

const nameTaken = (name: string) => new ApiError(409, "DESTINATION_NAME_TAKEN", `A destination named ${name} exists`);

export async function createDestination(ctx: OrgContext, input: DestinationInput): Promise<DestinationRow> {
  await checkTarget(ctx, input.target);
  const store = new DestinationStore(ctx);
  if (await store.byName(input.name)) throw nameTaken(input.name);
  return store.create(input);
}

function refuseManaged(row: DestinationRow): void {
  if (row.ownerKind) throw new ApiError(409, "DESTINATION_MANAGED", `Destination ${row.id} belongs to ${row.ownerKind} ${row.ownerId}: change it there`);
}

export async function updateDestination(ctx: OrgContext, id: string, patch: Partial<DestinationInput>): Promise<DestinationRow> {
  const row = await rowOf(ctx, id);
  refuseManaged(row);
  if (patch.target) await checkTarget(ctx, patch.target);
  const store = new DestinationStore(ctx);
  if (patch.name && patch.name !== row.name && (await store.byName(patch.name))) throw nameTaken(patch.name);
  const updated = (await store.update(id, patch)) as DestinationRow;
  await queueOf(ctx, id).kick(ctx.orgId, id);
  return updated;
}

/** Refused while messages wait or are dead: purge them first (nothing leaves a queue unnoticed). */
export async function deleteDestination(ctx: OrgContext, id: string): Promise<void> {
  const row = await rowOf(ctx, id);
  refuseManaged(row);
  await destroy(ctx, row);
}

async function destroy(ctx: OrgContext, row: DestinationRow, force = false): Promise<void> {
  const queue = queueOf(ctx, row.id);
  const figures = await queue.figures(ctx.orgId);
  if (!force && figures && figures.depth + figures.dead > 0) {
    throw new ApiError(409, "DESTINATION_NOT_EMPTY", `Destination ${row.id} holds ${figures.depth} waiting and ${figures.dead} dead messages: purge them first`);
  }
  await new DestinationStore(ctx).delete(row.id);
  await queue.destroy(ctx.orgId);
}

export async function getDestination(ctx: OrgContext, id: string): Promise<{ row: DestinationRow; figures: QueueFigures | null }> {
  const row = await rowOf(ctx, id);
  return { row, figures: await queueOf(ctx, id).figures(ctx.orgId) };
}

export async function listDestinations(ctx: OrgContext, limit: number, offset: number): Promise<{ items: { row: DestinationRow; figures: QueueFigures | null }[]; total: number }> {
  const { rows, total } = await new DestinationStore(ctx).list(limit, offset);
  const figures = await Promise.all(rows.map((r) => queueOf(ctx, r.id).figures(ctx.orgId)));
  return { items: rows.map((row, i) => ({ row, figures: figures[i] ?? null })), total };
}

/** Hours of activity the channels dashboard shows per destination. */
export const ACTIVITY_HOURS = 24;

type ActivityCounts = Omit<HourActivity, "hour">;

export interface DestinationActivity {
  row: DestinationRow;
  figures: QueueFigures | null;
  totals: ActivityCounts;
  /** One entry per hour of the window, oldest first. */
  hours: ({ start: string } & ActivityCounts)[];
}

/**
 * A page of destinations, each with what its queue received, still holds, sent and failed per UTC
 * hour over the `ACTIVITY_HOURS` ending with the current one (the channels dashboard).
 */
export async function destinationsActivity(ctx: OrgContext, limit: number, offset: number, now = new Date()): Promise<{ since: string; items: DestinationActivity[]; total: number }> {
  const starts = hourStarts(now, ACTIVITY_HOURS);
  const since = starts[0]!;
  const { rows, total } = await new DestinationStore(ctx).list(limit, offset);
  const found = await Promise.all(rows.map((r) => queueOf(ctx, r.id).activity(ctx.orgId, Date.parse(since))));
  const items = rows.map((row, i) => {
    const byHour = new Map((found[i]?.hours ?? []).map((h) => [h.hour, h]));
    const hours = starts.map((start) => {
      const { hour: _, ...counts } = byHour.get(Date.parse(start)) ?? { hour: 0, received: 0, queued: 0, sent: 0, errored: 0 };
      return { start, ...counts };
    });
    const sum = (k: keyof ActivityCounts) => hours.reduce((n, h) => n + h[k], 0);
    return { row, figures: found[i]?.figures ?? null, totals: { received: sum("received"), queued: sum("queued"), sent: sum("sent"), errored: sum("errored") }, hours };
  });
  return { since, items, total };
}

export async function setDestinationState(ctx: OrgContext, id: string, state: "active" | "paused"): Promise<DestinationRow> {
  await rowOf(ctx, id);
  const row = (await new DestinationStore(ctx).update(id, { state })) as DestinationRow;
  if (state === "active") await queueOf(ctx, id).kick(ctx.orgId, id);
  return row;
}

export async function actOnMessages(ctx: OrgContext, id: string, op: OperatorAction): Promise<{ affected: number }> {
  await rowOf(ctx, id);
  return queueOf(ctx, id).act(ctx.orgId, id, op);
}

/** Messages handed to a destination's queue; an id given twice is enqueued once (answered in `duplicates`). */
export async function enqueue(ctx: OrgContext, destinationId: string, messages: readonly OutboundMessage[]): Promise<{ ids: string[]; duplicates: string[] }> {
  await rowOf(ctx, destinationId);
  const withIds = messages.map((m) => ({ ...m, id: m.id ?? crypto.randomUUID() }));
  return queueOf(ctx, destinationId).enqueue(ctx.orgId, destinationId, withIds);
}

/**
 * Sends messages again under their ids (a webhook replay): those the queue still holds settled are
 * queued again at the tail, the others (pruned, or never queued) are enqueued; waiting ones stay put.
 */
export async function redeliver(ctx: OrgContext, destinationId: string, messages: readonly (OutboundMessage & { id: string })[]): Promise<{ ids: string[] }> {
  const { duplicates } = await enqueue(ctx, destinationId, messages);
  if (duplicates.length) await queueOf(ctx, destinationId).act(ctx.orgId, destinationId, { action: "reprocess", message_ids: duplicates });
  return { ids: messages.map((m) => m.id) };
}

export interface DestinationSettings {
  target: DeliveryTarget;
  /** MSH settings for HL7 v2 messages built for the destination (sending_application, receiving_facility, version...). */
  hl7: Record<string, string> | null;
}

/** Where a destination delivers and its HL7 header settings (404 DESTINATION_NOT_FOUND when it is not the org's). */
export async function destinationSettings(ctx: OrgContext, destinationId: string): Promise<DestinationSettings> {
  const row = await rowOf(ctx, destinationId);
  return { target: row.target, hl7: row.hl7 };
}

export async function queueStats(ctx: OrgContext, destinationId: string): Promise<QueueFigures | null> {
  await rowOf(ctx, destinationId);
  return queueOf(ctx, destinationId).figures(ctx.orgId);
}

export interface MessageListing {
  state?: MessageState;
  label?: string;
  key?: string;
  since?: string;
  limit?: number;
  cursor?: string;
}

/** Newest first; next_cursor continues below the page's last message. */
export async function listMessages(ctx: OrgContext, destinationId: string, q: MessageListing): Promise<{ messages: QueuedMessage[]; next_cursor: string | null }> {
  await rowOf(ctx, destinationId);
  const limit = q.limit ?? 20;
  const messages = await queueOf(ctx, destinationId).messages(ctx.orgId, {
    state: q.state,
    label: q.label,
    key: q.key,
    since: q.since ? Date.parse(q.since) : undefined,
    before: q.cursor ? Number(q.cursor) : undefined,
    limit,
  });
  const last = messages.at(-1);
  return { messages, next_cursor: messages.length === limit && last ? String(last.seq) : null };
}

export async function messageAttempts(ctx: OrgContext, destinationId: string, messageId: string): Promise<{ message: QueuedMessage; attempts: Attempt[] }> {
  await rowOf(ctx, destinationId);
  const found = await queueOf(ctx, destinationId).message(ctx.orgId, messageId);
  if (!found) throw notFound(`Message ${messageId} not found in destination ${destinationId}`, "MESSAGE_NOT_FOUND");
  return found;
}

/** What a feature says of the destination it manages; the rest takes the defaults. */
export type ManagedSpec = Omit<DestinationInput, "name" | "description" | "hl7"> & { name: string };

/**
 * The destination a feature manages for `owner`, created or updated in place (same id). Its name
 * is made unique with the owner's id, so it never takes one an operator chose.
 */
export async function saveManagedDestination(ctx: OrgContext, owner: Owner, spec: ManagedSpec): Promise<Destination> {
  const store = new DestinationStore(ctx);
  const name = `${spec.name} (${owner.kind} ${owner.id})`.slice(0, 200);
  const existing = await store.byOwner(owner);
  const row = existing ? ((await store.update(existing.id, { ...spec, name })) as DestinationRow) : await store.create({ ...spec, name }, owner);
  if (existing) await queueOf(ctx, row.id).kick(ctx.orgId, row.id);
  return store.resolve(row);
}

export async function managedDestination(ctx: OrgContext, owner: Owner): Promise<Destination | undefined> {
  const store = new DestinationStore(ctx);
  const row = await store.byOwner(owner);
  return row ? store.resolve(row) : undefined;
}

/** Makes the waiting messages of an owner's destination due now (a websocket client just bound: what waited goes out). */
export async function retryManagedNow(ctx: OrgContext, owner: Owner): Promise<void> {
  const row = await new DestinationStore(ctx).byOwner(owner);
  if (row) await queueOf(ctx, row.id).act(ctx.orgId, row.id, { action: "retry_now" });
}

/** The owner is gone: its destination goes with its queue, whatever it still holds. */
export async function removeManagedDestination(ctx: OrgContext, owner: Owner): Promise<void> {
  const row = await new DestinationStore(ctx).byOwner(owner);
  if (row) await destroy(ctx, row, true);
}
