// Oura API v2 (smart ring): OAuth 2.0 (credentials in the body, no PKCE), webhooks signed
// `x-oura-signature` = upper-case hex HMAC-SHA256(client secret, x-oura-timestamp + body),
// a GET challenge handshake, notify-only events fetched by id (reference 1.3).
import type { PlatformCall, PlatformCredentials } from "../../platform-adapter";
import { type DevicePlatform, type PlatformEvent, type WebhookDelivery, noOutcome, urlOf } from "../platform";
import { constantTimeEqual, freshTimestamp, hmacSha256Hex } from "../webhooks/signature";
import { vendorJson, withQuery } from "../vendor-http";
import { OURA_KIND, mapOura, ouraMappers } from "./mapping";
import { ouraSubscriber, renewOuraSubscriptions } from "./subscriptions";

const API = "https://api.ouraring.com";
const api = (c: PlatformCredentials) => urlOf(c, "api_base_url", API);
/** Oura sends notifications about 30 s after the app syncs; a 5-minute window bounds replays. */
const TOLERANCE_SECONDS = 300;

/** Oura's timestamp header as epoch ms: seconds, milliseconds or an ISO instant. */
function timestampMs(raw: string): number {
  const n = Number(raw);
  if (Number.isFinite(n)) return n < 1e12 ? n * 1000 : n;
  return Date.parse(raw);
}

/** Heart rate is a time series without ids; everything else is a document by day. */
const byDatetime = (dataType: string) => dataType === "heartrate";

export const oura: DevicePlatform = {
  kind: OURA_KIND,
  vendor: "Oura",
  dataTypes: Object.keys(ouraMappers),
  maxSyncDays: 365,
  renewSubscriptions: renewOuraSubscriptions,
  subscriber: ouraSubscriber,
  oauth: {
    authorizeUrl: "https://cloud.ouraring.com/oauth/authorize",
    tokenUrl: `${API}/oauth/token`,
    revokeUrl: `${API}/oauth/revoke`,
    scopes: ["personal", "daily", "heartrate", "workout", "session", "spo2"],
    pkce: false,
    clientAuth: "post",
  },
  webhook: {
    async handshake(delivery, credentials) {
      if (delivery.method !== "GET") return undefined;
      const token = delivery.url.searchParams.get("verification_token") ?? "";
      const challenge = delivery.url.searchParams.get("challenge");
      const expected = credentials.extra?.webhook_verification_token ?? "";
      // Not answerable with these credentials: verify then refuses it as any unsigned delivery.
      if (!challenge || !expected || !constantTimeEqual(token, expected)) return undefined;
      return Response.json({ challenge });
    },
    async verify(delivery: WebhookDelivery, credentials) {
      const signature = delivery.headers.get("x-oura-signature");
      const timestamp = delivery.headers.get("x-oura-timestamp");
      if (!signature || !timestamp) return { ok: false, reason: "missing x-oura-signature or x-oura-timestamp" };
      if (!credentials.clientSecret) return { ok: false, reason: "no client secret configured" };
      if (!freshTimestamp(timestampMs(timestamp), delivery.receivedAt, TOLERANCE_SECONDS)) return { ok: false, reason: "stale timestamp" };
      const expected = (await hmacSha256Hex(credentials.clientSecret, timestamp + delivery.body)).toUpperCase();
      return constantTimeEqual(signature.toUpperCase(), expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
    },
    events(body) {
      const b = (body ?? {}) as Record<string, unknown>;
      const dataType = String(b.data_type ?? "");
      const eventType = String(b.event_type ?? "");
      if (!Object.hasOwn(ouraMappers, dataType) || typeof b.user_id !== "string") return [];
      const action = eventType === "delete" ? "delete" : eventType === "create" || eventType === "update" ? "upsert" : undefined;
      if (!action) return [];
      return [{ platformUserId: b.user_id, action, dataType, objectId: String(b.object_id ?? "") }];
    },
  },
  async platformUserId(call: PlatformCall) {
    const info = await vendorJson<{ id?: string }>(call, `${api(call.credentials)}/v2/usercollection/personal_info`);
    return String(info.id ?? "");
  },
  async handleEvent(call, device, event: PlatformEvent) {
    if (event.action === "delete") return { ...noOutcome, deletedRecordIds: event.objectId ? [event.objectId] : [] };
    if (!event.objectId) return { ...noOutcome, note: "the notification names no object_id to fetch" };
    const doc = await vendorJson(call, `${api(call.credentials)}/v2/usercollection/${event.dataType}/${encodeURIComponent(event.objectId)}`);
    return { readings: mapOura(device, event.dataType, doc), deletedRecordIds: [] };
  },
  async fetchPage(call, device, range) {
    const window = byDatetime(range.dataType)
      ? { start_datetime: range.from, end_datetime: range.to }
      : { start_date: range.from.slice(0, 10), end_date: range.to.slice(0, 10) };
    const url = withQuery(`${api(call.credentials)}/v2/usercollection/${range.dataType}`, { ...window, next_token: range.cursor });
    const page = await vendorJson<{ data?: unknown[]; next_token?: string | null }>(call, url);
    return {
      readings: (page.data ?? []).flatMap((doc) => mapOura(device, range.dataType, doc)),
      ...(page.next_token ? { nextCursor: page.next_token } : {}),
    };
  },
};
