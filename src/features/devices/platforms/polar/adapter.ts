// Polar AccessLink v3 (training platform): OAuth 2.0 with Basic client authentication and a
// long-lived token without refresh; the user is registered after consent (POST /v3/users) and
// deleted on unlink; one webhook per client (subscriber.ts), signed `Polar-Webhook-Signature` =
// hex HMAC-SHA256(signature_secret_key, body); the PING on creation may come unsigned (reference
// V9); events are notify-only and their `url` is fetched (reference 1.5).
import type { PlatformCredentials } from "../../platform-adapter";
import { type DevicePlatform, type PlatformEvent, noOutcome, urlOf } from "../platform";
import { failureOf, vendorCall, vendorJson, withQuery } from "../vendor-http";
import { verifyHexBodySignature } from "../webhooks/signature";
import { POLAR_KIND, mapPolar, polarMappers } from "./mapping";
import { polarSubscriber } from "./subscriber";

const API = "https://www.polaraccesslink.com";
const api = (c: PlatformCredentials) => urlOf(c, "api_base_url", API);
const EVENT_TYPES: Readonly<Record<string, string>> = { EXERCISE: "exercise", SLEEP: "sleep" };
const SIGNATURE = "polar-webhook-signature";

/** A notification URL must point at the configured AccessLink host (no fetching elsewhere with the user's token). */
function sameHost(url: string, credentials: PlatformCredentials): boolean {
  try {
    return new URL(url).origin === new URL(api(credentials)).origin;
  } catch {
    return false;
  }
}

export const polar: DevicePlatform = {
  kind: POLAR_KIND,
  vendor: "Polar AccessLink",
  dataTypes: Object.keys(polarMappers),
  // AccessLink keeps about 30 days of exercises and 28 nights of sleep.
  maxSyncDays: 28,
  subscriber: polarSubscriber,
  oauth: {
    authorizeUrl: "https://flow.polar.com/oauth2/authorization",
    tokenUrl: "https://polarremote.com/v2/oauth2/token",
    scopes: ["accesslink.read_all"],
    pkce: false,
    clientAuth: "basic",
  },
  webhook: {
    async handshake(delivery) {
      // A PING carries no data and changes nothing, so it is answered 200 signed or not (reference
      // V9: it may come unsigned); a signed one cannot be checked while the webhook is being
      // created anyway: Polar answers the key only after the PING succeeded. Only a body that is
      // nothing but a PING qualifies.
      try {
        const body = JSON.parse(delivery.body) as Record<string, unknown>;
        return body.event === "PING" && Object.keys(body).every((k) => k === "event" || k === "timestamp" || k === "url") ? Response.json({ status: "pong" }) : undefined;
      } catch {
        return undefined;
      }
    },
    verify: (delivery, credentials) => verifyHexBodySignature(delivery.headers, SIGNATURE, credentials.extra?.webhook_signature_secret, delivery.body),
    events(body) {
      const b = (body ?? {}) as Record<string, unknown>;
      const dataType = Object.hasOwn(EVENT_TYPES, String(b.event)) ? EVENT_TYPES[String(b.event)] : undefined;
      if (!dataType || b.user_id === undefined || typeof b.url !== "string") return [];
      return [{ platformUserId: String(b.user_id), action: "upsert", dataType, objectId: String(b.entity_id ?? ""), url: b.url }];
    },
  },
  async platformUserId(_call, tokenResponse) {
    return String(tokenResponse.x_user_id ?? "");
  },
  async afterLink(call, device) {
    const res = await vendorCall(call, `${api(call.credentials)}/v3/users`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ "member-id": device.deviceId }) });
    // 409: the user is already registered with this client.
    if (!res.ok && res.status !== 409) throw await failureOf(res, "POST /v3/users");
  },
  async beforeUnlink(call, device) {
    const res = await vendorCall(call, `${api(call.credentials)}/v3/users/${encodeURIComponent(device.platformUserId ?? "")}`, { method: "DELETE" });
    if (!res.ok && res.status !== 404) throw await failureOf(res, "DELETE /v3/users");
  },
  async handleEvent(call, device, event: PlatformEvent) {
    if (!event.url) return { ...noOutcome, note: "the notification names no url to fetch" };
    // The user's token goes only to AccessLink's own host.
    if (!sameHost(event.url, call.credentials)) return { ...noOutcome, note: `the notification's url ${JSON.stringify(event.url.slice(0, 200))} is not on AccessLink's host: not fetched with the user's token` };
    return { readings: mapPolar(device, event.dataType, await vendorJson(call, event.url)), deletedRecordIds: [] };
  },
  async fetchPage(call, device, range) {
    const from = Date.parse(range.from);
    const to = Date.parse(range.to);
    if (range.dataType === "exercise") {
      const list = await vendorJson<unknown[]>(call, `${api(call.credentials)}/v3/exercises`);
      const inRange = (Array.isArray(list) ? list : []).filter((e) => {
        const at = Date.parse(`${String((e as Record<string, unknown>).start_time).slice(0, 19)}Z`);
        return at >= from && at < to;
      });
      return { readings: inRange.flatMap((e) => mapPolar(device, "exercise", e)) };
    }
    if (range.dataType === "sleep") {
      const body = await vendorJson<{ nights?: unknown[] }>(call, withQuery(`${api(call.credentials)}/v3/users/sleep`, {}));
      const nights = (body.nights ?? []).filter((n) => {
        const day = Date.parse(String((n as Record<string, unknown>).date));
        return day >= from - 86_400_000 && day < to;
      });
      return { readings: nights.flatMap((n) => mapPolar(device, "sleep", n)) };
    }
    return { readings: [] };
  },
};
