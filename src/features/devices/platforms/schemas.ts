// API schemas and presenters of the wearable platforms: linking, links, webhook events, subscribers.
import { z } from "@hono/zod-openapi";
import type { SubscriberState } from "./platform";
import type { PlatformDescriptor } from "./registry";
import type { DeviceWebhookEventRow } from "./webhooks/tables";
import type { DevicePlatformLinkRow } from "./oauth/tables";

export const KindParam = z.object({ kind: z.string().min(1).max(64).openapi({ param: { name: "kind", in: "path" }, example: "smart_ring" }) });
export const OrgKindParams = KindParam.extend({
  orgId: z.string().min(1).max(128).openapi({ param: { name: "orgId", in: "path" }, description: "The organization the platform is registered for" }),
});
export const DeviceIdParam = z.object({ deviceId: z.string().min(1).max(128).openapi({ param: { name: "deviceId", in: "path" } }) });

export const AuthorizationBody = z
  .object({
    patient_id: z.string().min(1).max(128).openapi({ description: "Our Patient id" }),
    device_id: z.string().min(1).max(128).openapi({ description: "The device link (FHIR Device) the readings will come from" }),
  })
  .openapi("DevicePlatformAuthorizationRequest");

export const AuthorizationResponse = z
  .object({
    authorization_url: z.string().url().openapi({ description: "Open it (or send it to the patient) to consent at the platform" }),
    redirect_uri: z.string().url().openapi({ description: "The callback the platform returns to: register it in the platform's developer console" }),
    expires_at: z.string().openapi({ description: "The link's state expires at this instant (10 minutes)" }),
  })
  .openapi("DevicePlatformAuthorization");

export const CallbackQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

export const LinkedResponse = z
  .object({ status: z.literal("linked"), device_id: z.string(), patient_id: z.string(), platform_user_id: z.string() })
  .openapi("DevicePlatformLinked");

export const Link = z
  .object({
    device_id: z.string(),
    kind: z.string(),
    patient_id: z.string(),
    platform_user_id: z.string(),
    status: z.enum(["active", "inactive"]),
    status_reason: z.string().nullable(),
    token_expires_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("DevicePlatformLink");

export const UnlinkResponse = z
  .object({
    revoked: z.boolean().openapi({ description: "Whether the platform confirmed the revocation" }),
    revocation: z.enum(["revoked", "not_supported", "failed", "not_configured"]).openapi({
      description:
        "What happened at the platform: revoked (confirmed: token revocation, deregistration or user deletion), not_supported (the platform has no revocation, e.g. Suunto), failed (it refused or was unreachable), not_configured (the integration is gone). The tokens are forgotten in every case.",
    }),
    detail: z.string().openapi({ description: "The same, in words" }),
  })
  .openapi("DevicePlatformUnlinked");

export const BackfillBody = z
  .object({
    data_types: z.array(z.string().min(1).max(64)).max(20).optional().openapi({ description: "Omitted means every type the platform can backfill" }),
    from: z.string().datetime({ offset: true }),
    to: z.string().datetime({ offset: true }),
  })
  .openapi("DevicePlatformBackfillRequest");

export const BackfillResponse = z
  .object({ requested: z.array(z.string()), already_requested: z.array(z.string()) })
  .openapi("DevicePlatformBackfill");

export const WebhookEvent = z
  .object({
    id: z.string(),
    kind: z.string(),
    status: z.enum(["queued", "processed", "no_readings", "failed", "dead"]).openapi({
      description: "`no_readings`: handled, but a body holding data yielded no reading, delete or link change; `error` says why (no event the adapter reads, no active link, the vendor's data not in a shape the mapping reads)",
    }),
    attempts: z.number().int(),
    readings: z.number().int().openapi({ description: "Readings the device core stored (new, or already stored by an earlier delivery)" }),
    updated: z.number().int().openapi({
      description:
        "Observations the delivery changed (a vendor's updated record: each given a new version), over all its attempts: one changed by an attempt that failed afterwards counts, and is current (a duplicate) on the retry",
    }),
    deleted: z.number().int().openapi({ description: "Vendor records whose readings were removed" }),
    rejected: z.number().int().openapi({ description: "Readings the device core refused (nothing stored for them); the reasons in `rejections`" }),
    rejections: z
      .array(z.object({ record: z.string().openapi({ description: "The vendor's record id" }), metric: z.string(), reason: z.string() }))
      .openapi({ description: "The first 20 refused readings, each with its reason" }),
    replays: z.number().int().openapi({ description: "Byte-identical re-deliveries of this body, acknowledged and dropped" }),
    error: z.string().nullable().openapi({ description: "Why the delivery failed, went dead, or (`no_readings`) yielded nothing" }),
    received_at: z.string(),
    processed_at: z.string().nullable(),
  })
  .openapi("DeviceWebhookEvent");

export const WebhookEventQuery = z.object({
  kind: z.string().max(64).optional(),
  status: z.enum(["queued", "processed", "no_readings", "failed", "dead"]).optional(),
});

export const WebhookAck = z
  .object({
    status: z.enum(["queued", "duplicate", "ignored"]).openapi({
      description:
        "`ignored`: the body names no event the platform's adapter reads (still recorded, as `no_readings` with that reason); `duplicate` only for bodies too large to queue inline, whose replay is found before answering; other replays answer `queued` and the consumer drops them (`replays` on the first delivery)",
    }),
    event_id: z.string().optional(),
  })
  .openapi("DeviceWebhookAck");

export function presentLink(row: Omit<DevicePlatformLinkRow, "tokensEnc" | "refreshLeaseUntil">): z.infer<typeof Link> {
  return {
    device_id: row.deviceId,
    kind: row.kind,
    patient_id: row.patientId,
    platform_user_id: row.platformUserId,
    status: row.status === "inactive" ? "inactive" : "active",
    status_reason: row.statusReason,
    token_expires_at: row.expiresAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function presentEvent(row: DeviceWebhookEventRow): z.infer<typeof WebhookEvent> {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status as z.infer<typeof WebhookEvent>["status"],
    attempts: row.attempts,
    readings: row.readings,
    updated: row.updated,
    deleted: row.deleted,
    rejected: row.rejected,
    rejections: row.rejections ?? [],
    replays: row.replays,
    error: row.error,
    received_at: row.receivedAt,
    processed_at: row.processedAt,
  };
}

// ---- the org's vendor-side webhook registration (Google Health subscriber)

export const Subscriber = z
  .object({
    name: z.string().openapi({ description: "The vendor's name for it (Google: the subscriber's resource name; Polar: the webhook id; Oura, which has one subscription per type: the endpoint)", example: "projects/my-project/subscribers/org-3f2a9c1e0b7d4a6f8e5c2b1a0d9e8f7c" }),
    state: z.string().openapi({ description: "As the vendor reports it (Google: UNVERIFIED, ACTIVE, INACTIVE, or PENDING while its operation runs; Oura: ACTIVE, or INCOMPLETE while data or event types lack a subscription; Polar: ACTIVE)", example: "ACTIVE" }),
    endpoint_uri: z.string().nullable(),
    data_types: z.array(z.string()).openapi({ description: "The data types the vendor notifies about" }),
    secret_set: z.boolean().nullable().openapi({ description: "Google: whether it holds the endpoint's Authorization secret; Polar: whether the integration holds the webhook's signature key (secrets are never returned)" }),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: "When it lapses unless renewed (Oura: its earliest subscription; the hourly cron renews them)" }),
    subscriptions: z
      .array(z.object({ id: z.string(), data_type: z.string(), event_type: z.string(), expires_at: z.string().nullable() }))
      .optional()
      .openapi({ description: "Platforms that register per data and event type (Oura): each subscription at this organization's endpoint" }),
  })
  .openapi("DevicePlatformSubscriber");

export const SubscriberPut = Subscriber.extend({ created: z.boolean().openapi({ description: "True when it was created, false when an existing one was updated" }) }).openapi("DevicePlatformSubscriberPut");

export function presentSubscriber(s: SubscriberState) {
  return {
    name: s.name,
    state: s.state,
    endpoint_uri: s.endpointUri ?? null,
    data_types: [...s.dataTypes],
    secret_set: s.secretSet ?? null,
    created_at: s.createdAt ?? null,
    updated_at: s.updatedAt ?? null,
    expires_at: s.expiresAt ?? null,
    ...(s.subscriptions ? { subscriptions: s.subscriptions.map((x) => ({ id: x.id, data_type: x.dataType, event_type: x.eventType, expires_at: x.expiresAt ?? null })) } : {}),
  };
}

export const PlatformDescriptorSchema = z
  .object({
    kind: z.string().openapi({ example: "smart_ring" }),
    vendor: z.string().nullable().openapi({ description: "The vendor whose API the platform calls; null for a kind with no platform here" }),
    pulls: z.boolean().openapi({ description: "A manual sync (POST /api/v1/devices/{deviceId}/sync) can pull from it; false: readings only arrive (companion apps, MQTT, posted readings), so a sync is refused" }),
    oauth: z.boolean().openapi({ description: "A patient's account is linked through the platform's consent (POST /api/v1/device-platforms/{kind}/authorizations)" }),
    data_types: z.array(z.string()),
    max_sync_days: z.number().int().nullable(),
  })
  .openapi("DevicePlatformDescriptor");

export const PlatformCatalogSchema = z.object({ platforms: z.array(PlatformDescriptorSchema) }).openapi("DevicePlatformCatalog");

export const presentDescriptor = (d: PlatformDescriptor): z.infer<typeof PlatformDescriptorSchema> => ({
  kind: d.kind,
  vendor: d.vendor,
  pulls: d.pulls,
  oauth: d.oauth,
  data_types: [...d.dataTypes],
  max_sync_days: d.maxSyncDays,
});
