// Garmin Health API (sports watch): OAuth 2.0 with PKCE (OAuth 1.0a retires 2026-12-31 and is
// not implemented), push delivery (summaries inline) or ping (a callbackURL to fetch, called
// unchanged), deregistration and permission-change notifications, and backfill: a request
// answers 202 and the data arrives later by push; a repeated window answers 409 (reference 1.2).
// Garmin does not sign its pushes: the `garmin-client-id` header must name the org's client,
// and when the org configures a signing secret (a signing proxy in front), `x-garmin-signature`
// must be the hex HMAC-SHA256 of the raw body.
import { type FetchedPage, type LinkedDevice, type PlatformCall, type PlatformCredentials, PlatformError } from "../../platform-adapter";
import { type DevicePlatform, type PlatformEvent, noOutcome, urlOf } from "../platform";
import { failureOf, vendorCall, vendorJson, withQuery } from "../vendor-http";
import { constantTimeEqual, verifyHexBodySignature } from "../webhooks/signature";
import { GARMIN_KIND, garminMappers, mapGarmin } from "./mapping";

const API = "https://apis.garmin.com";
const api = (c: PlatformCredentials) => urlOf(c, "api_base_url", API);

/** Push summary keys → the backfill path names Garmin uses for them. */
const BACKFILL_PATH: Readonly<Record<string, string>> = { dailies: "dailies", stressDetails: "stressDetails", sleeps: "sleeps", hrv: "hrv", pulseox: "pulseOx", allDayRespiration: "respiration" };

/** The permissions without which nothing can be exported. */
const EXPORT_PERMISSIONS = ["HEALTH_EXPORT", "ACTIVITY_EXPORT"];

export type BackfillResult = "accepted" | "duplicate";

/** Asks Garmin to push a window again: 202 accepted, 409 already requested for that window. */
export async function requestBackfill(call: PlatformCall, dataType: string, from: string, to: string): Promise<BackfillResult> {
  const path = Object.hasOwn(BACKFILL_PATH, dataType) ? BACKFILL_PATH[dataType] : undefined;
  if (!path) throw new PlatformError("invalid", `Garmin has no backfill for ${dataType}`);
  const url = withQuery(`${api(call.credentials)}/wellness-api/rest/backfill/${path}`, {
    summaryStartTimeInSeconds: Math.floor(Date.parse(from) / 1000),
    summaryEndTimeInSeconds: Math.floor(Date.parse(to) / 1000),
  });
  const res = await vendorCall(call, url);
  if (res.status === 202) return "accepted";
  if (res.status === 409) return "duplicate";
  throw await failureOf(res, `backfill ${path}`);
}

function eventsOf(body: unknown): PlatformEvent[] {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const items = (key: string) => (Array.isArray(b[key]) ? (b[key] as Record<string, unknown>[]) : []).filter((i) => i && typeof i.userId === "string");
  const out: PlatformEvent[] = [];
  for (const key of Object.keys(garminMappers)) {
    for (const item of items(key)) {
      const callback = typeof item.callbackURL === "string" ? item.callbackURL : undefined;
      out.push({ platformUserId: String(item.userId), action: "upsert", dataType: key, ...(callback ? { url: callback } : { inline: item, objectId: String(item.summaryId ?? "") }) });
    }
  }
  for (const item of items("deregistrations")) out.push({ platformUserId: String(item.userId), action: "deregister", dataType: "deregistrations" });
  for (const item of items("userPermissionsChange")) out.push({ platformUserId: String(item.userId), action: "permissions", dataType: "userPermissionsChange", inline: item.permissions });
  return out;
}

export const garmin: DevicePlatform = {
  kind: GARMIN_KIND,
  vendor: "Garmin",
  dataTypes: Object.keys(BACKFILL_PATH),
  // Garmin accepts backfill windows of up to 90 days; one request per window and type.
  maxSyncDays: 90,
  oauth: {
    authorizeUrl: "https://connect.garmin.com/oauth2Confirm",
    tokenUrl: "https://diauth.garmin.com/di-oauth2-service/oauth/token",
    scopes: [],
    pkce: true,
    clientAuth: "post",
  },
  webhook: {
    // The org's client id in `garmin-client-id` is always required (Garmin signs nothing); with a
    // signing secret (a signing proxy in front) the body's HMAC is required as well, not instead.
    async verify(delivery, credentials) {
      const clientId = delivery.headers.get("garmin-client-id");
      if (clientId === null) return { ok: false, reason: "missing garmin-client-id" };
      if (!constantTimeEqual(clientId, credentials.clientId ?? "")) return { ok: false, reason: "garmin-client-id is not this organization's client" };
      const secret = credentials.extra?.webhook_signing_secret;
      return secret ? verifyHexBodySignature(delivery.headers, "x-garmin-signature", secret, delivery.body) : { ok: true };
    },
    events: eventsOf,
  },
  async platformUserId(call) {
    const body = await vendorJson<{ userId?: string }>(call, `${api(call.credentials)}/wellness-api/rest/user/id`);
    return String(body.userId ?? "");
  },
  async beforeUnlink(call) {
    const res = await vendorCall(call, `${api(call.credentials)}/wellness-api/rest/user/registration`, { method: "DELETE" });
    if (!res.ok && res.status !== 404) throw await failureOf(res, "DELETE user/registration");
  },
  async handleEvent(call, device: LinkedDevice, event) {
    if (event.action === "permissions") {
      const granted = Array.isArray(event.inline) ? event.inline.map(String) : [];
      return EXPORT_PERMISSIONS.some((p) => granted.includes(p)) ? noOutcome : { ...noOutcome, linkInactive: "the user withdrew Garmin's export permissions" };
    }
    if (event.url) {
      // A ping: the callback URL (with its token parameter) is called unchanged.
      const docs = await vendorJson<unknown>(call, event.url);
      const list = Array.isArray(docs) ? docs : [];
      return { readings: list.flatMap((d) => mapGarmin(device, event.dataType, d)), deletedRecordIds: [] };
    }
    return { readings: mapGarmin(device, event.dataType, event.inline), deletedRecordIds: [] };
  },
  /** Garmin has no pull: a sync page asks for a backfill, and the data arrives by push. */
  async fetchPage(call, _device, range): Promise<FetchedPage> {
    const result = await requestBackfill(call, range.dataType, range.from, range.to);
    const reason = result === "accepted" ? "backfill requested (HTTP 202): the data arrives by push" : "backfill already requested for this window (HTTP 409)";
    return { readings: [], skipped: [{ sourceRecordId: `backfill:${range.dataType}:${range.from}/${range.to}`, reason }] };
  },
  backfill: requestBackfill,
};
