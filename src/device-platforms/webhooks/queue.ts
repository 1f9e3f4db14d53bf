// The queue consumer: each message is one verified delivery, recorded here first when the
// webhook queued its body (a vendor's byte-identical replay is counted and dropped; a queue
// redelivery carries on with the same row); its events are handled for every active link of the
// vendor user, the readings handed to the device core, and the row's state moved on. Vendor trouble (429, 5xx) retries with the vendor's delay; after MAX_ATTEMPTS the
// row is `dead` and stays visible in the webhook event list.
import { PlatformError } from "../../features/devices/platform-adapter";
import type { Env } from "../../platform/env";
import type { OrgData } from "../../platform/org-data";
import { platformOf } from "../catalog";
import { linksOfUser, setLinkStatus } from "../oauth/link-store";
import { platformServices } from "../../device-platform-services";
import { webhookCredentials } from "./credential-cache";
import { getEvent, recordDelivery, updateEvent } from "./event-store";
import { handlePlatformEvent } from "./handle-event";
import type { DeviceEventMessage } from "./receive";
import { sha256Hex } from "./signature";

export const MAX_ATTEMPTS = 5;
const DEFAULT_RETRY_SECONDS = 30;

/**
 * Handles one recorded delivery to the end; throws what deserves a retry. `fresh` is the delivery
 * this attempt just recorded (no need to read the row back).
 */
export async function processDeviceEvent(data: OrgData, eventId: string, fresh?: { kind: string; body: string }): Promise<void> {
  const row = fresh ?? (await getEvent(data, eventId));
  if (!row || ("status" in row && (row.status === "processed" || row.status === "dead"))) return;
  const platform = platformOf(row.kind);
  const services = platformServices(data.env);
  const { credentials } = await webhookCredentials(data, row.kind);
  if (!platform?.webhook || !credentials) {
    await updateEvent(data, eventId, { status: "dead", error: `the ${row.kind} platform is no longer configured` });
    return;
  }
  const c = { data, platform, credentials, fetch: services.fetch(data.env) };
  let readings = 0;
  let deleted = 0;
  for (const event of platform.webhook.events(JSON.parse(row.body))) {
    for (const link of await linksOfUser(data, row.kind, event.platformUserId)) {
      if (link.status !== "active") continue;
      const outcome = await handlePlatformEvent(c, link, event);
      const deletes = outcome.deletedRecordIds.map((sourceRecordId) => ({ deviceId: link.deviceId, sourceRecordId }));
      if (outcome.readings.length || deletes.length) await services.ingest(data, row.kind, outcome.readings, deletes);
      if (outcome.linkInactive) {
        await setLinkStatus(data, link.deviceId, "inactive", outcome.linkInactive);
        await services.linkStatus(data, link.deviceId, "inactive", outcome.linkInactive);
      }
      readings += outcome.readings.length;
      deleted += deletes.length;
    }
  }
  await updateEvent(data, eventId, { status: "processed", readings, deleted, error: null, processedAt: new Date().toISOString() });
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

/** Records the message's delivery if it carries one, then handles it; a replay is only counted. */
async function handleMessage(data: OrgData, { eventId, delivery }: DeviceEventMessage): Promise<void> {
  if (!delivery) return processDeviceEvent(data, eventId);
  const recorded = await recordDelivery(data, { id: eventId, kind: delivery.kind, bodySha256: await sha256Hex(delivery.body), body: delivery.body, receivedAt: delivery.receivedAt });
  if (recorded === "new") return processDeviceEvent(data, eventId, delivery);
  if (recorded === "known") return processDeviceEvent(data, eventId);
}

export async function processDeviceEventBatch(batch: MessageBatch<DeviceEventMessage>, env: Env, dataFor: (env: Env, orgId: string) => Promise<OrgData>): Promise<void> {
  for (const message of batch.messages) {
    const { orgId, eventId } = message.body;
    let data: OrgData;
    try {
      data = await dataFor(env, orgId);
    } catch {
      message.ack(); // the organization is gone: nothing to do
      continue;
    }
    try {
      await handleMessage(data, message.body);
      message.ack();
    } catch (e) {
      const decision = retryDecision(e, message.attempts);
      const error = e instanceof Error ? e.message : String(e);
      await updateEvent(data, eventId, { status: decision.retry ? "failed" : "dead", attempts: message.attempts, error });
      if (decision.retry) message.retry({ delaySeconds: decision.delaySeconds });
      else message.ack();
    }
  }
}
