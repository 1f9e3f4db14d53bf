// Suunto Cloud API (outdoor watch): OAuth 2.0 (Basic client authentication) whose access token
// is a JWT naming the user (`user` claim = username, which notifications carry); every API call
// carries `Ocp-Apim-Subscription-Key`; webhooks are signed `X-HMAC-SHA256-Signature` = hex
// HMAC-SHA256(notification secret, body) and carry their data inline: the workout
// (`WORKOUT_CREATED`) or the 24/7 samples (`SUUNTO_247_*_CREATED`; reference 1.6, V10).
import { type PlatformCall, type PlatformCredentials, PlatformError } from "../../platform-adapter";
import { type DevicePlatform, urlOf } from "../platform";
import { vendorJson, withQuery } from "../vendor-http";
import { verifyHexBodySignature } from "../webhooks/signature";
import { SUUNTO_247_TYPES, SUUNTO_KIND, mapSuunto247, mapSuuntoWorkout, type Suunto247Type } from "./mapping";

const API = "https://cloudapi.suunto.com";
const api = (c: PlatformCredentials) => urlOf(c, "api_base_url", API);
/** `/v2/workouts` is what public integrations use; `/v3` is unconfirmed (V10): configurable. */
const workoutsPath = (c: PlatformCredentials) => urlOf(c, "workouts_path", "/v2/workouts");
const PAGE = 50;

const subscription = (call: PlatformCall) => ({ "ocp-apim-subscription-key": call.credentials.extra?.subscription_key ?? "" });

/** The JWT's claims, read without verification: the token came straight from Suunto's token endpoint over TLS. */
function jwtClaims(token: string): Record<string, unknown> {
  const part = token.split(".")[1];
  if (!part) throw new PlatformError("invalid", "Suunto's access token is not a JWT");
  try {
    return JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "="))) as Record<string, unknown>;
  } catch {
    throw new PlatformError("invalid", "Suunto's access token has unreadable claims");
  }
}

export const suunto: DevicePlatform = {
  kind: SUUNTO_KIND,
  vendor: "Suunto",
  dataTypes: ["workout"],
  maxSyncDays: 365,
  oauth: {
    authorizeUrl: "https://cloudapi-oauth.suunto.com/oauth/authorize",
    tokenUrl: "https://cloudapi-oauth.suunto.com/oauth/token",
    scopes: ["workout"],
    pkce: false,
    clientAuth: "basic",
  },
  webhook: {
    verify: (delivery, credentials) => verifyHexBodySignature(delivery.headers, "x-hmac-sha256-signature", credentials.extra?.webhook_secret, delivery.body),
    events(body) {
      const b = (body ?? {}) as Record<string, unknown>;
      if (typeof b.username !== "string") return [];
      if (b.type === "WORKOUT_CREATED") return b.workout ? [{ platformUserId: b.username, action: "upsert", dataType: "workout", inline: b.workout }] : [];
      const type = typeof b.type === "string" && Object.hasOwn(SUUNTO_247_TYPES, b.type) ? SUUNTO_247_TYPES[b.type] : undefined;
      // Whatever shape the samples have: the mapping says why it read none (the delivery's reason).
      return type ? [{ platformUserId: b.username, action: "upsert", dataType: type, inline: b.samples ?? null }] : [];
    },
  },
  async platformUserId(_call, tokenResponse) {
    const claims = jwtClaims(String(tokenResponse.access_token ?? ""));
    return String(claims.user ?? tokenResponse.user ?? "");
  },
  async handleEvent(_call, device, event) {
    if (event.dataType === "workout") {
      const readings = event.inline ? mapSuuntoWorkout(device, event.inline) : [];
      return { readings, deletedRecordIds: [], ...(readings.length ? {} : { note: "the workout has no startTime (epoch ms) and workoutKey the mapping reads" }) };
    }
    const { readings, unread } = mapSuunto247(device, event.platformUserId, event.dataType as Suunto247Type, event.inline);
    return { readings, deletedRecordIds: [], ...(readings.length || !unread ? {} : { note: unread }) };
  },
  async fetchPage(call, device, range) {
    const offset = Number(range.cursor ?? 0);
    const url = withQuery(`${api(call.credentials)}${workoutsPath(call.credentials)}`, { since: Date.parse(range.from), until: Date.parse(range.to), limit: PAGE, offset });
    const body = await vendorJson<{ payload?: unknown[] }>(call, url, { headers: subscription(call) });
    const workouts = body.payload ?? [];
    return { readings: workouts.flatMap((w) => mapSuuntoWorkout(device, w)), ...(workouts.length === PAGE ? { nextCursor: String(offset + PAGE) } : {}) };
  },
};
