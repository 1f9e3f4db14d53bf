// A webhook delivery, from the raw request to the queue: the signature is checked over the
// raw body before anything is parsed or stored; handshakes are answered; a verified delivery
// is recorded once (a byte-identical replay adds nothing) and queued, and the vendor gets its
// acknowledgement at once. The work happens in the consumer (queue.ts).
import { ApiError, badRequest, notFound } from "../../platform/errors";
import type { OrgData } from "../../platform/org-data";
import { platformOf } from "../catalog";
import type { WebhookDelivery } from "../platform";
import { platformServices } from "../../device-platform-services";
import { recordDelivery } from "./event-store";
import { sha256Hex } from "./signature";

export interface DeviceEventMessage {
  readonly orgId: string;
  readonly eventId: string;
}

export type DeviceEventQueue = Pick<Queue<DeviceEventMessage>, "send">;

const ack = (status: 200 | 204, body: Record<string, unknown>) => (status === 204 ? new Response(null, { status }) : Response.json(body, { status }));

export async function receiveWebhook(data: OrgData, kind: string, delivery: WebhookDelivery, queue: DeviceEventQueue): Promise<Response> {
  const spec = platformOf(kind)?.webhook;
  if (!spec) throw notFound(`No webhook for platform kind ${kind}`, "PLATFORM_NOT_FOUND");
  const credentials = await platformServices(data.env).credentialsFor(data, kind);
  if (!credentials) throw notFound(`The ${kind} platform is not configured for this organization`, "PLATFORM_NOT_CONFIGURED");

  const handshake = await spec.handshake?.(delivery, credentials);
  if (handshake) return handshake;
  const verified = await spec.verify(delivery, credentials);
  if (!verified.ok) throw new ApiError(401, "SIGNATURE_INVALID", `Webhook signature not accepted: ${verified.reason}`);

  let body: unknown;
  try {
    body = JSON.parse(delivery.body);
  } catch {
    throw badRequest("The webhook body is not JSON");
  }
  const status = spec.ackStatus ?? 200;
  if (spec.events(body).length === 0) return ack(status, { status: "ignored" });
  const eventId = await recordDelivery(data, kind, await sha256Hex(delivery.body), delivery.body, delivery.receivedAt);
  if (!eventId) return ack(status, { status: "duplicate" });
  await queue.send({ orgId: data.orgId, eventId });
  return ack(status, { status: "queued", event_id: eventId });
}
