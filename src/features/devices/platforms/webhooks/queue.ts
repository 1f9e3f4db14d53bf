// The queue consumer. A batch's messages are handled per organization, in three steps, each
// costing the batch one D1 round trip rather than one per message: the deliveries the webhook
// queued are recorded together (a vendor's byte-identical replay is counted and dropped; a queue
// redelivery carries on with its row); each delivery's events are handled for every active link
// of the vendor user (the vendor calls of the batch's deliveries run concurrently); the readings
// of consecutive deliveries go to the device core in one ingest (one FHIR transaction) and the
// rows move to `processed` in one batch, counting the readings stored and those the device core
// refused (with the reasons). A delivery whose body holds data and yields no reading, no delete
// and no link change is never a silent `processed`: it is `no_readings` with the reason (no event
// the adapter reads, no active link, the adapter's note on the vendor's shape), and each device
// its events name gets a `failed` sync log saying so. Vendor trouble (429, 5xx) retries the delivery with the
// vendor's delay; after MAX_ATTEMPTS the row is `dead` and stays visible in the webhook event list,
// and each device its events name gets a `failed` sync log saying so, where the device's history is read.
import { PlatformError } from "../../platform-adapter";
import { logger } from "../../../../platform/observability/log";
import type { Reading } from "../../reading";
import type { Env } from "../../../../platform/env";
import type { OrgContext } from "../../../../platform/org-context";
import { linksOfUser, setLinkStatus } from "../oauth/link-store";
import type { StoreResult } from "../services";
import { webhookCredentials } from "./credential-cache";
import { type EventUpdate, getEvent, type Recorded, recordDeliveries, updateEvent, updateEvents } from "./event-store";
import { handlePlatformEvent } from "./handle-event";
import type { DeviceEventMessage } from "./receive";
import type { Rejection } from "./tables";
import { sha256Hex } from "./signature";

export const MAX_ATTEMPTS = 5;
/** Refusals kept on a delivery's row with their reasons (all are counted). */
export const MAX_REJECTIONS_KEPT = 20;
const DEFAULT_RETRY_SECONDS = 30;
/** A no-readings reason is kept to this many characters on the row and in the sync logs. */
const MAX_REASON_CHARS = 1000;

type DeviceEvent = Message<DeviceEventMessage>;

/** What handling one delivery's events produced, stored after the batch's vendor calls. */
interface Handled {
  readonly kind: string;
  readonly readings: Reading[];
  readonly deletes: { deviceId: string; sourceRecordId: string }[];
  /** The vendor's deletes that named a record (one record may span several source record ids). */
  deletedRecords: number;
  /** Readings the device core refused when they were stored, with the reason. */
  readonly rejected: Rejection[];
  /** Readings that changed their stored Observation (a new version), in this attempt. */
  updated: number;
  /** Those counted by the delivery's earlier attempts that failed after storing them (the row's `updated`). */
  readonly updatedBefore: number;
  /** Links to end (a revoked grant, a deregistration), after their readings are stored. */
  readonly inactive: { deviceId: string; reason: string }[];
  /** Set when the delivery cannot be handled at all: the row goes dead without a retry. */
  readonly dead?: string;
  /** Why events gave nothing (no event the adapter reads, no active link, the adapter's note): the reason of a delivery that yields no reading. */
  readonly notes: Set<string>;
}

/** What to do with a failed attempt: retry after some seconds, or give up (dead letter). */
export function retryDecision(error: unknown, attempts: number): { retry: true; delaySeconds: number } | { retry: false } {
  if (attempts >= MAX_ATTEMPTS) return { retry: false };
  if (error instanceof PlatformError) {
    if (error.kind === "invalid") return { retry: false };
    return { retry: true, delaySeconds: error.retryAfterSeconds ?? DEFAULT_RETRY_SECONDS };
  }
  return { retry: true, delaySeconds: DEFAULT_RETRY_SECONDS * attempts };
}

/**
 * The body each message's delivery is to be handled with: recorded first when the message
 * carries it; `undefined` when there is nothing to do (a replay, a row already settled or gone).
 */
async function rowsToHandle(data: OrgContext, messages: readonly DeviceEvent[]): Promise<({ kind: string; body: string; updated: number } | undefined)[]> {
  const carried = messages.flatMap((m) => (m.body.delivery ? [{ ...m.body.delivery, id: m.body.eventId }] : []));
  const records = await Promise.all(carried.map(async (d) => ({ id: d.id, kind: d.kind, bodySha256: await sha256Hex(d.body), body: d.body, receivedAt: d.receivedAt })));
  const recorded = new Map<string, Recorded>((await recordDeliveries(data, records)).map((r, i) => [records[i]!.id, r]));
  return Promise.all(
    messages.map(async ({ body: { eventId, delivery } }) => {
      const outcome = delivery ? recorded.get(eventId) : "known";
      if (outcome === "new") return delivery && { ...delivery, updated: 0 };
      if (outcome === "replay") return undefined;
      const row = await getEvent(data, eventId);
      return row && row.status !== "processed" && row.status !== "dead" ? row : undefined;
    }),
  );
}

/** One delivery's events for every active link of their vendor user: the vendor calls, nothing stored yet. */
async function handleDelivery(data: OrgContext, { kind, body, updated }: { kind: string; body: string; updated: number }): Promise<Handled> {
  const handled: Handled = { kind, readings: [], deletes: [], deletedRecords: 0, rejected: [], updated: 0, updatedBefore: updated, inactive: [], notes: new Set() };
  const platform = data.devicePlatforms.of(kind);
  const { credentials } = await webhookCredentials(data, kind);
  if (!platform?.webhook || !credentials) return { ...handled, dead: `the ${kind} platform is no longer configured` };
  const c = { data, platform, credentials, fetch: data.platformServices.fetch(data.env) };
  const parsed: unknown = JSON.parse(body);
  const events = platform.webhook.events(parsed);
  if (!events.length) handled.notes.add(`the body names no ${platform.vendor} event the adapter reads (${shapeOf(parsed)})`);
  for (const event of events) {
    const links = await linksOfUser(data, kind, event.platformUserId);
    const active = links.filter((l) => l.status === "active");
    if (!links.length) handled.notes.add(`no device is linked to ${platform.vendor} user ${event.platformUserId}`);
    else if (!active.length) handled.notes.add(`the link of ${platform.vendor} user ${event.platformUserId} is inactive${links[0]?.statusReason ? ` (${links[0].statusReason})` : ""}`);
    for (const link of active) {
      const outcome = await handlePlatformEvent(c, link, event);
      handled.readings.push(...outcome.readings);
      handled.deletes.push(...outcome.deletedRecordIds.map((sourceRecordId) => ({ deviceId: link.deviceId, sourceRecordId })));
      if (outcome.deletedRecordIds.length) handled.deletedRecords += 1;
      if (outcome.linkInactive) handled.inactive.push({ deviceId: link.deviceId, reason: outcome.linkInactive });
      if (!outcome.readings.length && !outcome.deletedRecordIds.length && !outcome.linkInactive) {
        handled.notes.add(`the ${event.dataType} event of ${platform.vendor} user ${event.platformUserId} gave no readings${outcome.note ? `: ${outcome.note}` : ""}`);
      }
    }
  }
  return handled;
}

/** The top-level fields of a body, for a reason (a vendor's shape we do not read). */
function shapeOf(body: unknown): string {
  if (body === null || typeof body !== "object") return `a JSON ${body === null ? "null" : typeof body}`;
  if (Array.isArray(body)) return `a list of ${body.length}`;
  const keys = Object.keys(body);
  const type = (body as Record<string, unknown>).type ?? (body as Record<string, unknown>).event_type;
  return `${typeof type === "string" ? `type ${type.slice(0, 80)}, ` : ""}fields ${keys.slice(0, 10).join(", ") || "none"}${keys.length > 10 ? ", …" : ""}`;
}

/** A body that holds something (not null, "", [] or {}): one that yields nothing is then a delivery whose data was not read. */
function holdsData(body: string): boolean {
  try {
    const v: unknown = JSON.parse(body);
    if (v === null || v === "") return false;
    if (Array.isArray(v)) return v.length > 0;
    return typeof v !== "object" || Object.keys(v).length > 0;
  } catch {
    return true;
  }
}

/** Handled, stored, and nothing came of a body that holds data: the reason it is recorded with (never a silent `processed`). */
function noReadingsReason(h: Handled, body: string): string | undefined {
  if (h.readings.length || h.deletes.length || h.inactive.length || !holdsData(body)) return undefined;
  const reason = [...h.notes].join("; ") || "the delivery's events gave no readings";
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;
}

/** The reading the device core refused, as its delivery's row shows it. */
const rejection = (reading: Reading, result: StoreResult): Rejection => ({
  record: reading.sourceRecordId,
  metric: reading.metric,
  reason: (result.errors ?? []).map((e) => `${e.path}: ${e.message}`).join("; ") || "refused",
});

/**
 * Stores the handled deliveries in order: the readings of consecutive deliveries together (one
 * ingest per platform), a delivery with deletes on its own (a delete applies after what came
 * before it); each refused reading is put back on its delivery. The error of each delivery
 * whose storing failed.
 */
async function store(data: OrgContext, handled: readonly (Handled | undefined)[]): Promise<Map<number, unknown>> {
  const services = data.platformServices;
  const failed = new Map<number, unknown>();
  let segment: number[] = [];
  const flush = async () => {
    const members = segment;
    segment = [];
    const byKind = new Map<string, { readings: Reading[]; owners: Handled[]; deletes: Handled["deletes"] }>();
    for (const i of members) {
      const h = handled[i]!;
      const group = byKind.get(h.kind) ?? { readings: [], owners: [], deletes: [] };
      group.readings.push(...h.readings);
      group.owners.push(...h.readings.map(() => h));
      group.deletes.push(...h.deletes);
      byKind.set(h.kind, group);
    }
    try {
      for (const [kind, { readings, owners, deletes }] of byKind) {
        if (!readings.length && !deletes.length) continue;
        const tally = (results: readonly StoreResult[]) =>
          results.forEach((result, r) => {
            if (result.errors?.length) owners[r]!.rejected.push(rejection(readings[r]!, result));
            else if (result.updated) owners[r]!.updated += 1;
          });
        // What a failing ingest stored before it failed still counts: the retry meets those as current.
        const outcomes: StoreResult[] = [];
        const results = await services.ingest(data, kind, readings, deletes, outcomes).catch((e: unknown) => {
          tally(outcomes);
          throw e;
        });
        tally(results);
      }
      for (const i of members) {
        for (const { deviceId, reason } of handled[i]!.inactive) {
          await setLinkStatus(data, deviceId, "inactive", reason);
          await services.linkStatus(data, deviceId, "inactive", reason);
        }
      }
    } catch (e) {
      for (const i of members) failed.set(i, e);
    }
  };
  for (const [i, h] of handled.entries()) {
    if (!h || h.dead) continue;
    if (h.deletes.length) await flush();
    segment.push(i);
    if (h.deletes.length) await flush();
  }
  await flush();
  return failed;
}

/**
 * A delivery given up (dead), or one whose data gave no reading: a `failed` sync log for every
 * linked device its events name, each data type naming the event and the reason, so the
 * device's sync logs show what its webhook data lost. Best effort: the row in the webhook event
 * list stays the record.
 */
async function logToDeviceSyncLogs(data: OrgContext, eventId: string, delivery: { kind: string; body: string; receivedAt?: string } | undefined, reason: string): Promise<void> {
  try {
    const d = delivery ?? (await getEvent(data, eventId));
    const spec = d && data.devicePlatforms.of(d.kind)?.webhook;
    if (!d || !spec) return;
    const types = new Map<string, Set<string>>();
    for (const event of spec.events(JSON.parse(d.body))) {
      for (const link of await linksOfUser(data, d.kind, event.platformUserId)) types.set(link.deviceId, (types.get(link.deviceId) ?? new Set()).add(event.dataType));
    }
    const services = data.platformServices;
    const at = d.receivedAt ?? new Date().toISOString();
    const now = new Date().toISOString();
    for (const [deviceId, dataTypes] of types) {
      const progress = Object.fromEntries(
        [...dataTypes].map((t) => [t, { state: "failed", pages_fetched: 0, readings_received: 0, observations_created: 0, duplicates_skipped: 0, readings_rejected: 0, errors: [{ reason, record: `webhook-event/${eventId}` }], rate_limited: 0 }]),
      );
      const id = await services.openSyncLog(data, { deviceId, from: at, to: at, requestedBy: `webhook:${d.kind}`, progress });
      await services.writeSyncLog(data, id, { state: "failed", progress, startedAt: at, finishedAt: now });
    }
  } catch (e) {
    logger(data.env).warn("webhook delivery not logged to sync logs", { org: data.orgId, event_id: eventId, error: e instanceof Error ? e.message : String(e) });
  }
}

const logDeadLetter = (data: OrgContext, eventId: string, delivery: { kind: string; body: string; receivedAt?: string } | undefined, attempts: number, error: string) =>
  logToDeviceSyncLogs(data, eventId, delivery, `webhook delivery ${eventId} dead after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${error}`);

/**
 * A failed attempt: the row says so (with the Observations the attempt updated before failing,
 * added to those of earlier attempts), and the message is retried or, out of attempts, given up.
 */
async function failed(data: OrgContext, message: DeviceEvent, e: unknown, handled?: Handled): Promise<void> {
  const decision = retryDecision(e, message.attempts);
  const error = e instanceof Error ? e.message : String(e);
  await updateEvent(data, message.body.eventId, {
    status: decision.retry ? "failed" : "dead",
    attempts: message.attempts,
    error,
    ...(handled?.updated ? { updated: handled.updatedBefore + handled.updated } : {}),
  });
  if (!decision.retry) await logDeadLetter(data, message.body.eventId, message.body.delivery, message.attempts, error);
  if (decision.retry) message.retry({ delaySeconds: decision.delaySeconds });
  else message.ack();
}

async function processOrgMessages(data: OrgContext, messages: readonly DeviceEvent[]): Promise<void> {
  let rows: Awaited<ReturnType<typeof rowsToHandle>>;
  try {
    rows = await rowsToHandle(data, messages);
  } catch (e) {
    for (const m of messages) await failed(data, m, e);
    return;
  }
  const errors = new Map<number, unknown>();
  const handled = await Promise.all(
    rows.map((row, i) =>
      row
        ? handleDelivery(data, row).catch((e: unknown) => {
            errors.set(i, e);
            return undefined;
          })
        : undefined,
    ),
  );
  for (const [i, e] of await store(data, handled)) errors.set(i, e);
  const settled: { id: string; update: EventUpdate }[] = [];
  const unread = new Map<number, string>();
  const now = new Date().toISOString();
  for (const [i, h] of handled.entries()) {
    if (!h || errors.has(i)) continue;
    const id = messages[i]!.body.eventId;
    const noReadings = h.dead ? undefined : noReadingsReason(h, rows[i]!.body);
    if (noReadings) unread.set(i, noReadings);
    settled.push({
      id,
      update: h.dead
        ? { status: "dead", error: h.dead }
        : {
            status: noReadings ? "no_readings" : "processed",
            readings: h.readings.length - h.rejected.length,
            updated: h.updatedBefore + h.updated,
            deleted: h.deletedRecords,
            rejected: h.rejected.length,
            rejections: h.rejected.length ? h.rejected.slice(0, MAX_REJECTIONS_KEPT) : null,
            error: noReadings ?? null,
            processedAt: now,
          },
    });
  }
  try {
    await updateEvents(data, settled);
  } catch (e) {
    for (const s of settled) errors.set(messages.findIndex((m) => m.body.eventId === s.id), e);
  }
  for (const [i, h] of handled.entries()) {
    const m = messages[i]!;
    if (errors.has(i)) continue;
    const delivery = rows[i] && { ...rows[i]!, receivedAt: m.body.delivery?.receivedAt };
    if (h?.dead) await logDeadLetter(data, m.body.eventId, delivery, m.attempts, h.dead);
    const noReadings = unread.get(i);
    if (noReadings) await logToDeviceSyncLogs(data, m.body.eventId, delivery, `webhook delivery ${m.body.eventId} gave no readings: ${noReadings}`);
  }
  for (const [i, m] of messages.entries()) {
    if (errors.has(i)) await failed(data, m, errors.get(i), handled[i]);
    else m.ack();
  }
}

export async function processDeviceEventBatch(batch: MessageBatch<DeviceEventMessage>, env: Env, dataFor: (env: Env, orgId: string) => Promise<OrgContext>): Promise<void> {
  const byOrg = new Map<string, DeviceEvent[]>();
  for (const m of batch.messages) byOrg.set(m.body.orgId, [...(byOrg.get(m.body.orgId) ?? []), m]);
  for (const [orgId, messages] of byOrg) {
    let data: OrgContext;
    try {
      data = await dataFor(env, orgId);
    } catch {
      for (const m of messages) m.ack(); // the organization is gone: nothing to do
      continue;
    }
    await processOrgMessages(data, messages);
  }
}
