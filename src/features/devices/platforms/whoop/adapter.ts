// WHOOP API v2 (recovery strap): OAuth 2.0 with the `offline` scope for a refresh token,
// webhooks signed `X-WHOOP-Signature` = base64 HMAC-SHA256(client secret, timestamp + body)
// with `X-WHOOP-Signature-Timestamp` in ms, notify-only events fetched by id (reference 1.4).
import type { PlatformCall, PlatformCredentials } from "../../platform-adapter";
import { type DevicePlatform, type PlatformEvent, noOutcome, urlOf } from "../platform";
import { vendorCall, vendorJson, withQuery, failureOf } from "../vendor-http";
import { constantTimeEqual, freshTimestamp, hmacSha256Base64 } from "../webhooks/signature";
import { UNSCORED_STATES, WHOOP_KIND, mapWhoop, recoveryRecordId, stateRecordId, whoopMappers } from "./mapping";

const API = "https://api.prod.whoop.com/developer";
const api = (c: PlatformCredentials) => urlOf(c, "api_base_url", API);
const TOLERANCE_SECONDS = 300;
/** WHOOP's page size ceiling. */
const PAGE_LIMIT = 25;

const COLLECTIONS: Readonly<Record<string, string>> = { cycle: "/v2/cycle", recovery: "/v2/recovery", sleep: "/v2/activity/sleep", workout: "/v2/activity/workout" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A recovery event names the cycle (integer) or, in v2, possibly the sleep (UUID) (reference V7). */
async function recoveryFor(call: PlatformCall, id: string): Promise<unknown> {
  let cycleId = id;
  if (UUID.test(id)) {
    const sleep = await vendorJson<{ cycle_id?: number }>(call, `${api(call.credentials)}/v2/activity/sleep/${id}`);
    cycleId = String(sleep.cycle_id ?? "");
  }
  return vendorJson(call, `${api(call.credentials)}/v2/cycle/${encodeURIComponent(cycleId)}/recovery`);
}

/**
 * The records a `*.deleted` event retracts. A v2 recovery delete names the sleep (a recovery is
 * deleted with its sleep), so it retracts the recovery's readings, not the sleep's: the
 * `sleep.deleted` that comes with it retracts those. A v1 recovery delete names the cycle, whose
 * sleep is gone by then, so it cannot be traced to a recovery: nothing (webhooks must be v2, the default).
 */
function deletedRecords(dataType: string, id: string): string[] {
  const record = dataType !== "recovery" ? id : UUID.test(id) ? recoveryRecordId(id) : "";
  // The record's absent readings from before it was scored go with it.
  return record ? [record, ...UNSCORED_STATES.map((state) => stateRecordId(record, state))] : [];
}

export const whoop: DevicePlatform = {
  kind: WHOOP_KIND,
  vendor: "WHOOP",
  dataTypes: Object.keys(whoopMappers),
  maxSyncDays: 365,
  oauth: {
    authorizeUrl: "https://api.prod.whoop.com/oauth/oauth2/auth",
    tokenUrl: "https://api.prod.whoop.com/oauth/oauth2/token",
    scopes: ["offline", "read:recovery", "read:cycles", "read:sleep", "read:workout", "read:profile", "read:body_measurement"],
    pkce: false,
    clientAuth: "post",
  },
  webhook: {
    async verify(delivery, credentials) {
      const signature = delivery.headers.get("x-whoop-signature");
      const timestamp = delivery.headers.get("x-whoop-signature-timestamp");
      if (!signature || !timestamp) return { ok: false, reason: "missing X-WHOOP-Signature or X-WHOOP-Signature-Timestamp" };
      if (!credentials.clientSecret) return { ok: false, reason: "no client secret configured" };
      if (!freshTimestamp(Number(timestamp), delivery.receivedAt, TOLERANCE_SECONDS)) return { ok: false, reason: "stale timestamp" };
      const expected = await hmacSha256Base64(credentials.clientSecret, timestamp + delivery.body);
      return constantTimeEqual(signature, expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
    },
    events(body) {
      const b = (body ?? {}) as Record<string, unknown>;
      const [dataType, verb] = String(b.type ?? "").split(".");
      if (!dataType || !Object.hasOwn(whoopMappers, dataType) || b.user_id === undefined || b.id === undefined) return [];
      const action = verb === "deleted" ? "delete" : verb === "updated" ? "upsert" : undefined;
      return action ? [{ platformUserId: String(b.user_id), action, dataType, objectId: String(b.id) }] : [];
    },
  },
  async platformUserId(call) {
    const profile = await vendorJson<{ user_id?: number | string }>(call, `${api(call.credentials)}/v2/user/profile/basic`);
    return String(profile.user_id ?? "");
  },
  /** WHOOP revokes with its own call, not RFC 7009. */
  async beforeUnlink(call) {
    const res = await vendorCall(call, `${api(call.credentials)}/v2/user/access`, { method: "DELETE" });
    if (!res.ok && res.status !== 401) throw await failureOf(res, "DELETE /v2/user/access");
  },
  async handleEvent(call, device, event: PlatformEvent) {
    const id = event.objectId ?? "";
    if (event.action === "delete") {
      const records = deletedRecords(event.dataType, id);
      return { ...noOutcome, deletedRecordIds: records, ...(records.length ? {} : { note: `the delete names ${JSON.stringify(id.slice(0, 80))}, which is no recovery's sleep UUID (a v1 cycle id cannot be traced to a recovery)` }) };
    }
    const base = api(call.credentials);
    const doc =
      event.dataType === "recovery"
        ? await recoveryFor(call, id)
        : await vendorJson(call, `${base}${COLLECTIONS[event.dataType]}/${encodeURIComponent(id)}`);
    return { readings: mapWhoop(device, event.dataType, doc), deletedRecordIds: [] };
  },
  async fetchPage(call, device, range) {
    const path = Object.hasOwn(COLLECTIONS, range.dataType) ? COLLECTIONS[range.dataType] : undefined;
    if (!path) return { readings: [] };
    const url = withQuery(`${api(call.credentials)}${path}`, { start: range.from, end: range.to, limit: PAGE_LIMIT, nextToken: range.cursor });
    const page = await vendorJson<{ records?: unknown[]; next_token?: string | null }>(call, url);
    return {
      readings: (page.records ?? []).flatMap((doc) => mapWhoop(device, range.dataType, doc)),
      ...(page.next_token ? { nextCursor: page.next_token } : {}),
    };
  },
};
