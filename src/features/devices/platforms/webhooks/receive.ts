// A webhook delivery, from the raw request to the queue: the signature is checked over the
// raw body before anything is parsed or stored; handshakes are answered; a verified delivery
// is queued with its body (one naming no event the adapter reads too, so it is recorded with that
// reason) and the vendor gets its acknowledgement at once. The consumer
// (queue.ts) records it (a byte-identical replay adds nothing there) and does the work, so the
// acknowledgement costs no D1 statement. A body too large for a queue message is recorded here
// and queued by id.
import { ApiError, badRequest, notFound } from "../../../../platform/errors";
import { logger } from "../../../../platform/observability/log";
import { parseBoundedJson } from "../../../../platform/http/body-depth";
import type { OrgContext } from "../../../../platform/org-context";
import type { DevicePlatforms } from "../registry";
import type { WebhookDelivery, WebhookSpec } from "../platform";
import type { PlatformCredentials } from "../../platform-adapter";
import { webhookCredentials } from "./credential-cache";
import { recordDelivery } from "./event-store";
import { sha256Hex } from "./signature";

/** A delivery's body travels in the message up to this many UTF-16 units (≤ 96 KiB of UTF-8, under the 128 KB message limit). */
export const INLINE_BODY_MAX_CHARS = 32_000;

export interface DeviceEventMessage {
  readonly orgId: string;
  readonly eventId: string;
  /** The verified delivery, for the consumer to record; absent when it is already recorded. */
  readonly delivery?: { readonly kind: string; readonly body: string; readonly receivedAt: string };
}

export type DeviceEventQueue = Pick<Queue<DeviceEventMessage>, "send">;

/** Where a verified delivery goes: the queue, once the platform's rate limit admits it (throws 429 otherwise). */
export interface WebhookSink {
  readonly queue: DeviceEventQueue;
  readonly admit: () => Promise<void>;
}

/**
 * Every refusal of a delivery's authenticity answers the same: a wrong or missing signature, a
 * platform the organization has not configured, an organization that does not exist. What was
 * wrong goes to the log, so nobody can tell from the answer which organizations exist or which
 * platforms they use.
 */
export const signatureRefused = () => new ApiError(401, "SIGNATURE_INVALID", "Webhook signature not accepted");

/** The platform's webhook, before the organization is looked up (kinds are public: an unknown one is a 404 for every org). */
export function webhookSpecOf(platforms: DevicePlatforms, kind: string): WebhookSpec {
  const spec = platforms.of(kind)?.webhook;
  if (!spec) throw notFound(`No webhook for platform kind ${kind}`, "PLATFORM_NOT_FOUND");
  return spec;
}

/**
 * A handshake no credential decides (Polar's PING, which changes nothing and comes before Polar
 * hands out the key) is answered alike for every organization id, known or not, configured or
 * not; the others (Oura's token, Google's Authorization) find nothing to match without credentials.
 */
export function credentialFreeHandshake(spec: WebhookSpec, delivery: WebhookDelivery): Promise<Response | undefined> {
  return spec.handshake?.(delivery, {}) ?? Promise.resolve(undefined);
}

const ack = (status: 200 | 204, body: Record<string, unknown>) => (status === 204 ? new Response(null, { status }) : Response.json(body, { status }));

export async function receiveWebhook(data: OrgContext, kind: string, delivery: WebhookDelivery, { queue, admit }: WebhookSink): Promise<Response> {
  const spec = webhookSpecOf(data.devicePlatforms, kind);
  const verified = await verifiedWith(data, kind, spec, delivery);
  if (verified instanceof Response) return verified;
  // Counted once verified (an unsigned flood cannot spend the organization's window); a 429 queues nothing.
  await admit();

  let body: unknown;
  try {
    // Parsed whatever its Content-Type (vendors differ), so bounded here rather than by the body limit.
    body = parseBoundedJson(delivery.body, "The webhook body");
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw badRequest("The webhook body is not JSON");
  }
  const status = spec.ackStatus ?? 200;
  // A body naming no event the adapter reads is still queued: the consumer records it, with the reason (`no_readings`).
  const queued = spec.events(body).length ? "queued" : "ignored";
  const eventId = crypto.randomUUID();
  const receivedAt = delivery.receivedAt.toISOString();
  if (delivery.body.length <= INLINE_BODY_MAX_CHARS) {
    await queue.send({ orgId: data.orgId, eventId, delivery: { kind, body: delivery.body, receivedAt } });
    return ack(status, { status: queued, event_id: eventId });
  }
  const recorded = await recordDelivery(data, { id: eventId, kind, bodySha256: await sha256Hex(delivery.body), body: delivery.body, receivedAt });
  if (recorded === "replay") return ack(status, { status: "duplicate" });
  await queue.send({ orgId: data.orgId, eventId });
  return ack(status, { status: queued, event_id: eventId });
}

/** A handshake's answer, or the credentials the delivery verified against (cached, then fresh on failure); 401 otherwise. */
async function verifiedWith(data: OrgContext, kind: string, spec: WebhookSpec, delivery: WebhookDelivery): Promise<Response | PlatformCredentials> {
  const refuse = (reason: string) => {
    logger(data.env).warn("webhook refused", { org: data.orgId, kind, reason });
    return signatureRefused();
  };
  let read = await webhookCredentials(data, kind);
  for (;;) {
    const { credentials, cached } = read;
    if (!credentials) throw refuse("the platform is not configured for this organization");
    const handshake = await spec.handshake?.(delivery, credentials);
    if (handshake) return handshake;
    const verified = await spec.verify(delivery, credentials);
    if (verified.ok) return credentials;
    if (!cached) throw refuse(verified.reason);
    read = await webhookCredentials(data, kind, true);
  }
}
