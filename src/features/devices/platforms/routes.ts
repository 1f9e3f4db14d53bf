// Wearable platform endpoints. Public (no API key; mounted before authentication): the
// webhook per platform per org, whose signature is its authentication, and the OAuth callback
// the platform redirects the patient's browser to. Authenticated: starting a link, the links,
// unlinking, and the webhook events with their processing state.
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requirePermission } from "../../tenancy";
import { countWebhookDelivery } from "../../tenancy";
import { ApiError } from "../../../platform/errors";
import { logger } from "../../../platform/observability/log";
import { bodyLimit } from "../../../platform/http/body-limit";
import { absoluteUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, errorResponse, json, notFoundError, PageQuery, pageOf, security } from "../../../platform/http/schemas";
import { callbackRefusal, completeAuthorization, startAuthorization, unlinkDevice } from "./oauth/authorize";
import { backfillLink } from "./oauth/backfill";
import { listLinks } from "./oauth/link-store";
import {
  AuthorizationBody,
  BackfillBody,
  BackfillResponse,
  AuthorizationResponse,
  CallbackQuery,
  DeviceIdParam,
  KindParam,
  Link,
  LinkedResponse,
  OrgKindParams,
  UnlinkResponse,
  WebhookAck,
  WebhookEvent,
  WebhookEventQuery,
  presentEvent,
  presentLink,
  presentSubscriber,
  PlatformCatalogSchema,
  presentDescriptor,
  Subscriber,
  SubscriberPut,
} from "./schemas";
import { listEvents } from "./webhooks/event-store";
import { deleteSubscriber, getSubscriber, putSubscriber, subscriberTarget } from "./webhooks/subscriber";
import { credentialFreeHandshake, receiveWebhook, signatureRefused, webhookSpecOf } from "./webhooks/receive";
import type { HttpEnv } from "../../../platform/http/http-env";
import type { WebhookDelivery } from "./platform";
import { type DevicePlatformsOf, platformCatalog } from "./registry";
import { audited, notAudited } from "../../audit";

const tags = ["Wearable platforms"];
const manage = requirePermission("connectors:manage");
const read = requirePermission("devices:sync");

const callbackPath = (kind: string, orgId: string) => `/api/v1/device-platforms/${encodeURIComponent(kind)}/${encodeURIComponent(orgId)}/oauth/callback`;
const webhookPath = "/v1/webhooks/devices/{kind}/{orgId}";
const ownWebhookUrl = (c: Context<HttpEnv>, kind: string, orgId: string) => absoluteUrl(c, `/api/v1/webhooks/devices/${encodeURIComponent(kind)}/${encodeURIComponent(orgId)}`);

const subscriberErrors = {
  ...commonErrors,
  ...notFoundError,
  409: errorResponse("Polar: the client's one webhook points at another organization's endpoint"),
  422: errorResponse("The platform refused the request (its verification of the endpoint failed; Google: the project is wrong)"),
  502: errorResponse("The platform could not be reached or failed"),
};
const subscriberDescription =
  "Platforms whose webhook endpoint the app registers with app-level credentials, pointed at this organization's webhook " +
  "endpoint (or the integration's `webhook_url` setting); the platform verifies the endpoint while registering. Google Health: " +
  "projects.subscribers, called with the service account in the `service_account_key` credential, with the " +
  "`webhook_authorization` credential as the Authorization value Google must send. Oura: one subscription per data type " +
  "and event type (create, update, delete) with the app's client credentials and the `webhook_verification_token` " +
  "credential, which Oura sends back in its GET challenge; the hourly cron renews them. Polar AccessLink: the client's one " +
  "webhook (EXERCISE, SLEEP), with Basic client credentials; Polar PINGs the endpoint and returns its signature key once, " +
  "which is kept as the integration's `webhook_signature_secret` (never returned); an existing webhook is updated instead. " +
  "404 SUBSCRIBER_NOT_SUPPORTED for platforms without one, PLATFORM_NOT_CONFIGURED without an integration; 400 " +
  "PLATFORM_CREDENTIALS_REJECTED when the platform refuses the app's credentials, 400 naming a missing credential; 429 " +
  "with Retry-After on its rate limit.";

const byDevice = { param: "deviceId" } as const;
const byKind = { param: "kind" } as const;
// The vendor's delivery is no management action; what it carries is recorded where it lands.
const webhookAudit = notAudited("a vendor's delivery, authenticated by its signature: kept in the webhook event log (GET /api/v1/device-platforms/webhook-events); its readings are FHIR writes the store audits");

const webhookDoc = {
  tags,
  security: [],
  middleware: bodyLimit,
  request: { params: OrgKindParams },
  description:
    "No API key: the platform's signature over the raw body is the authentication (checked in constant time before anything " +
    "is parsed or stored; wrong, missing or stale → 401, and the same 401 for an organization that does not exist or has not configured the platform, so answers never tell which exist; Google Health: the subscriber's exact `Authorization` value, plus " +
    "`X-HEALTHAPI-SIGNATURE` when the org configured Google's public key). Handshakes (Oura challenge, Polar PING, Google Health verification) " +
    "are answered here. A verified delivery is queued and answered `queued` with its event id; the queue consumer records it " +
    "once, so a byte-identical replay adds nothing (counted as `replays` on the first delivery; a body over 32,000 characters " +
    "is recorded first and its replay answers `duplicate`); a body naming no event type the adapter reads answers `ignored` and is recorded as " +
    "`no_readings` with that reason. Verified deliveries have " +
    "their own rate limit per organization and platform (LIMIT_WEBHOOK_PER_MINUTE, default 6000), not the per-IP limit of " +
    "public routes: its X-RateLimit-* headers are on the answer, and over it the answer is 429 with Retry-After and nothing " +
    "is queued. Refused requests (401, 404 for an unknown platform kind) count per client IP.",
  responses: {
    200: { description: "Acknowledged (or a handshake answer)", content: json(WebhookAck) },
    201: { description: "Google Health subscriber verification" },
    204: { description: "Acknowledged without a body (platforms that expect it)" },
    400: errorResponse("Body is not JSON"),
    401: errorResponse("Signature missing, wrong or stale; the organization does not exist or has not configured the platform"),
    429: errorResponse("The organization's webhook limit for this platform is spent (Retry-After); nothing was queued"),
    ...notFoundError,
  },
};

/**
 * A webhook delivery: the platform's kind first (kinds are public), then a handshake no
 * credential decides, then the organization, which answers as a bad signature when unknown.
 */
async function webhookDelivery(c: Context<HttpEnv>, platformsOf: DevicePlatformsOf, kind: string, orgId: string, delivery: WebhookDelivery): Promise<Response> {
  const spec = webhookSpecOf(platformsOf(c.env), kind);
  const handshake = await credentialFreeHandshake(spec, delivery);
  if (handshake) return handshake;
  const data = await c.get("contexts").forPublicOrg(orgId, () => {
    logger(c.env).warn("webhook refused", { org: orgId, kind, reason: "no such organization" });
    return signatureRefused();
  });
  return receiveWebhook(data, kind, delivery, { queue: c.env.DEVICE_EVENTS, admit: () => countWebhookDelivery(c, orgId, kind) });
}

/**
 * Public routes: mounted under /api before authentication. `platformsOf`: the deployment's
 * platforms, which a webhook's kind is looked up in before any organization is.
 */
export const devicePlatformPublicRoutes = (platformsOf: DevicePlatformsOf) =>
  createRouter<HttpEnv>()
    .openapi(createRoute({ method: "post", path: webhookPath, operationId: "receiveDevicePlatformWebhook", audit: webhookAudit, summary: "Receive a wearable platform's webhook", ...webhookDoc }), async (c) => {
      const { kind, orgId } = c.req.valid("param");
      return webhookDelivery(c, platformsOf, kind, orgId, { method: "POST", url: new URL(c.req.url), headers: c.req.raw.headers, body: await c.req.text(), receivedAt: new Date() });
    })
    .openapi(createRoute({ method: "get", path: webhookPath, operationId: "answerDevicePlatformWebhookChallenge", summary: "Answer a wearable platform's webhook verification (GET challenge)", ...webhookDoc }), async (c) => {
      const { kind, orgId } = c.req.valid("param");
      return webhookDelivery(c, platformsOf, kind, orgId, { method: "GET", url: new URL(c.req.url), headers: c.req.raw.headers, body: "", receivedAt: new Date() });
    })
    .openapi(
      createRoute({
        method: "get",
        path: "/v1/device-platforms/{kind}/{orgId}/oauth/callback", operationId: "completeDevicePlatformAuthorization",
        tags,
        security: [],
        summary: "OAuth callback: the platform redirects here after consent",
        description: "No API key: the single-use `state` (bound to this organization, the patient and the device, 10 minutes) authenticates it.",
        request: { params: OrgKindParams, query: CallbackQuery },
        responses: { 200: { description: "The device is linked and Active", content: json(LinkedResponse) }, 400: errorResponse("State unknown, used, expired or for another platform; consent denied; code rejected"), 502: errorResponse("The platform failed"), ...notFoundError },
      }),
      async (c) => {
        const { kind, orgId } = c.req.valid("param");
        const query = new URL(c.req.url).searchParams;
        const data = await c.get("contexts").forPublicOrg(orgId, () => callbackRefusal(query));
        const linked = await completeAuthorization(data, kind, query);
        return c.json({ status: "linked" as const, device_id: linked.deviceId, patient_id: linked.patientId, platform_user_id: linked.platformUserId }, 200);
      },
    );

/** Authenticated routes, under /api/v1/device-platforms. */
export const devicePlatformRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", path: "/", operationId: "listDevicePlatforms", tags, summary: "The device platforms and push sources, and whether a sync can pull from each", security, middleware: requirePermission("fhir:read"), responses: { 200: { description: "Catalog", content: json(PlatformCatalogSchema) }, ...commonErrors } }),
    (c) => c.json({ platforms: platformCatalog(c.get("ctx").devicePlatforms).map(presentDescriptor) }, 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{kind}/authorizations", operationId: "startDevicePlatformAuthorization",
      audit: audited("device.link", { response: "device_id" }),
      tags,
      summary: "Start linking a patient's device: the platform's authorization URL",
      security,
      middleware: manage,
      request: { params: KindParam, body: { required: true, content: json(AuthorizationBody) } },
      responses: { 201: { description: "Authorization URL", content: json(AuthorizationResponse) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { kind } = c.req.valid("param");
      const body = c.req.valid("json");
      const ctx = c.get("ctx");
      const redirectUri = absoluteUrl(c, callbackPath(kind, ctx.orgId));
      const started = await startAuthorization(ctx, kind, { patientId: body.patient_id, deviceId: body.device_id }, redirectUri);
      return c.json({ authorization_url: started.authorizationUrl, redirect_uri: redirectUri, expires_at: started.expiresAt }, 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/links", operationId: "listDevicePlatformLinks", tags, summary: "Linked devices (tokens are never returned)", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("links", Link)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listLinks(c.get("ctx"), limit, offset);
      return c.json({ links: rows.map(presentLink), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/links/{deviceId}", operationId: "unlinkDevicePlatform", audit: audited("device.unlink", byDevice), tags, summary: "Unlink a device: revoke at the platform and forget the tokens", security, middleware: manage, request: { params: DeviceIdParam }, responses: { 200: { description: "Unlinked", content: json(UnlinkResponse) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(await unlinkDevice(c.get("ctx"), c.req.valid("param").deviceId), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/links/{deviceId}/backfill", operationId: "requestDevicePlatformBackfill",
      audit: audited("device.sync", byDevice),
      tags,
      summary: "Ask a push platform (Garmin) to deliver a window of history again",
      description: "202 when the platform accepted at least one data type (the data then arrives through the webhook); 409 BACKFILL_ALREADY_REQUESTED when every data type was already requested for this window.",
      security,
      middleware: read,
      request: { params: DeviceIdParam, body: { required: true, content: json(BackfillBody) } },
      responses: { 202: { description: "Requested", content: json(BackfillResponse) }, ...commonErrors, ...notFoundError, 409: errorResponse("Already requested, link inactive, or the platform has no backfill") },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await backfillLink(c.get("ctx"), c.req.valid("param").deviceId, { dataTypes: body.data_types, from: body.from, to: body.to });
      if (result.requested.length === 0) throw new ApiError(409, "BACKFILL_ALREADY_REQUESTED", `Already requested for this window: ${result.alreadyRequested.join(", ")}`);
      return c.json({ requested: result.requested, already_requested: result.alreadyRequested }, 202);
    },
  )
  .openapi(
    createRoute({ method: "put", path: "/{kind}/subscriber", operationId: "putDevicePlatformSubscriber", audit: audited("device.subscriber_update", byKind), tags, summary: "Register or update the organization's webhook subscriber at the platform", description: subscriberDescription, security, middleware: manage, request: { params: KindParam }, responses: { 200: { description: "Registered or updated, as the platform reports it", content: json(SubscriberPut) }, ...subscriberErrors } }),
    async (c) => {
      const { kind } = c.req.valid("param");
      const ctx = c.get("ctx");
      const state = await putSubscriber(ctx, kind, await subscriberTarget(ctx, kind, ownWebhookUrl(c, kind, ctx.orgId)));
      return c.json({ ...presentSubscriber(state), created: state.created }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{kind}/subscriber", operationId: "getDevicePlatformSubscriber", tags, summary: "The organization's webhook subscriber as the platform reports it", description: subscriberDescription, security, middleware: manage, request: { params: KindParam }, responses: { 200: { description: "The subscriber", content: json(Subscriber) }, ...subscriberErrors } }),
    async (c) => {
      const { kind } = c.req.valid("param");
      const ctx = c.get("ctx");
      return c.json(presentSubscriber(await getSubscriber(ctx, kind, await subscriberTarget(ctx, kind, ownWebhookUrl(c, kind, ctx.orgId)))), 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/{kind}/subscriber", operationId: "deleteDevicePlatformSubscriber", audit: audited("device.subscriber_delete", byKind), tags, summary: "Remove the organization's webhook subscriber at the platform (notifications stop)", description: subscriberDescription, security, middleware: manage, request: { params: KindParam }, responses: { 204: { description: "Removed" }, ...subscriberErrors } }),
    async (c) => {
      const { kind } = c.req.valid("param");
      const ctx = c.get("ctx");
      await deleteSubscriber(ctx, kind, await subscriberTarget(ctx, kind, ownWebhookUrl(c, kind, ctx.orgId)));
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/webhook-events", operationId: "listDevicePlatformWebhookEvents",
      tags,
      summary: "Received webhook deliveries and their processing state (queued, processed, no_readings with the reason, failed, dead)",
      security,
      middleware: read,
      request: { query: PageQuery.merge(WebhookEventQuery) },
      responses: { 200: { description: "Page, newest first", content: json(pageOf("events", WebhookEvent)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset, kind, status } = c.req.valid("query");
      const { rows, total } = await listEvents(c.get("ctx"), { kind, status }, limit, offset);
      return c.json({ events: rows.map(presentEvent), total_count: total }, 200);
    },
  );
