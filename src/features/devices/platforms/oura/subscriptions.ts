// Oura webhook subscriptions, per data type and event type, made with the app's credentials
// (`x-client-id` / `x-client-secret`, no user token) at `/v2/webhook/subscription` (paths as in
// Oura's OpenAPI-generated clients; the reference calls the renew path unverified).
// - The org's subscriber (`PUT|GET|DELETE …/smart_ring/subscriber`): one subscription per data
//   type we map and per event type (create, update, delete) at the org's webhook endpoint, each
//   created with `POST` and the org's `webhook_verification_token`, which Oura checks by calling
//   the endpoint (`GET ?verification_token=…&challenge=…`, answered by the adapter's handshake).
//   An app may hold subscriptions for other endpoints: only those at this org's are ours.
// - Renewal: subscriptions expire (`expiration_time`) and one that lapses stops the pushes
//   silently, so the hourly cron lists them and renews each expiring within a week
//   (`PUT /v2/webhook/subscription/renew/{id}`).
import { type PlatformCall, PlatformError } from "../../platform-adapter";
import { badRequest } from "../../../../platform/errors";
import type { SubscriberSpec, SubscriberState, SubscriberTarget, SubscriptionRenewal } from "../platform";
import { urlOf } from "../platform";
import { failureOf, vendorCall, vendorJson } from "../vendor-http";
import { ouraMappers } from "./mapping";

/** Renew this long before a subscription expires. */
export const RENEW_WITHIN_MS = 7 * 86_400_000;
/** Oura's webhook operations; we act on all three (a delete marks the record's Observations entered-in-error). */
export const OURA_EVENT_TYPES = ["create", "update", "delete"] as const;

interface Subscription {
  id: string;
  callback_url?: string;
  event_type?: string;
  data_type?: string;
  expiration_time?: string;
}

/** The subscription API's base and the app-credential headers every call carries. */
function appApi(call: PlatformCall) {
  const { clientId, clientSecret } = call.credentials;
  if (!clientId || !clientSecret) throw new PlatformError("unauthorized", "no Oura client credentials configured");
  return {
    base: `${urlOf(call.credentials, "api_base_url", "https://api.ouraring.com")}/v2/webhook/subscription`,
    request: { auth: "none" as const, headers: { "x-client-id": clientId, "x-client-secret": clientSecret } },
  };
}

async function listSubscriptions(call: PlatformCall): Promise<Subscription[]> {
  const { base, request } = appApi(call);
  const list = await vendorJson<Subscription[]>(call, base, request);
  return (Array.isArray(list) ? list : []).filter((s) => typeof s?.id === "string");
}

export async function renewOuraSubscriptions(call: PlatformCall, now: Date): Promise<SubscriptionRenewal> {
  if (!call.credentials.clientId || !call.credentials.clientSecret) return { checked: 0, renewed: [], failed: [{ id: "*", reason: "no client credentials" }] };
  const { base, request } = appApi(call);
  const subscriptions = await listSubscriptions(call);
  const due = subscriptions.filter((s) => {
    const expires = Date.parse(s.expiration_time ?? "");
    return !Number.isFinite(expires) || expires - now.getTime() <= RENEW_WITHIN_MS;
  });
  const renewed: { id: string; expiresAt?: string }[] = [];
  const failed: { id: string; reason: string }[] = [];
  for (const s of due) {
    try {
      const after = await vendorJson<Subscription>(call, `${base}/renew/${encodeURIComponent(s.id)}`, { ...request, method: "PUT" });
      renewed.push({ id: s.id, ...(after.expiration_time ? { expiresAt: after.expiration_time } : {}) });
    } catch (err) {
      failed.push({ id: s.id, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return { checked: subscriptions.length, renewed, failed };
}

/** Every (data type, event type) pair the org's endpoint should be subscribed to. */
const wanted = () => Object.keys(ouraMappers).flatMap((dataType) => OURA_EVENT_TYPES.map((eventType) => ({ dataType, eventType })));
const key = (dataType?: string, eventType?: string) => `${dataType}\u0000${eventType}`;

function stateOf(target: SubscriberTarget, mine: readonly Subscription[]): SubscriberState {
  const have = new Set(mine.map((s) => key(s.data_type, s.event_type)));
  const expiries = mine.map((s) => s.expiration_time).filter((e): e is string => typeof e === "string" && Number.isFinite(Date.parse(e)));
  const earliest = expiries.sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  return {
    name: target.endpointUri,
    // ACTIVE when every pair is subscribed; INCOMPLETE when some are missing (a PUT adds them).
    state: wanted().every((w) => have.has(key(w.dataType, w.eventType))) ? "ACTIVE" : "INCOMPLETE",
    endpointUri: target.endpointUri,
    dataTypes: [...new Set(mine.map((s) => s.data_type).filter((t): t is string => typeof t === "string"))],
    ...(earliest ? { expiresAt: earliest } : {}),
    subscriptions: mine.map((s) => ({ id: s.id, dataType: String(s.data_type ?? ""), eventType: String(s.event_type ?? ""), ...(s.expiration_time ? { expiresAt: s.expiration_time } : {}) })),
  };
}

const ours = (all: readonly Subscription[], target: SubscriberTarget) => all.filter((s) => s.callback_url === target.endpointUri);

export const ouraSubscriber: SubscriberSpec = {
  async put(call, target) {
    const verificationToken = call.credentials.extra?.webhook_verification_token;
    if (!verificationToken) throw badRequest("No verification token", [{ path: "credentials.webhook_verification_token", message: "is required: Oura sends it back when it verifies the endpoint" }]);
    const { base, request } = appApi(call);
    const mine = ours(await listSubscriptions(call), target);
    const have = new Set(mine.map((s) => key(s.data_type, s.event_type)));
    const missing = wanted().filter((w) => !have.has(key(w.dataType, w.eventType)));
    // One at a time: each creation makes Oura call the endpoint to verify it.
    for (const w of missing) {
      const body = JSON.stringify({ callback_url: target.endpointUri, verification_token: verificationToken, event_type: w.eventType, data_type: w.dataType });
      mine.push(await vendorJson<Subscription>(call, base, { ...request, method: "POST", headers: { ...request.headers, "content-type": "application/json" }, body }));
    }
    return { ...stateOf(target, mine), created: missing.length > 0 };
  },
  async get(call, target) {
    const mine = ours(await listSubscriptions(call), target);
    return mine.length ? stateOf(target, mine) : undefined;
  },
  async remove(call, target) {
    const { base, request } = appApi(call);
    const mine = ours(await listSubscriptions(call), target);
    for (const s of mine) {
      const res = await vendorCall(call, `${base}/${encodeURIComponent(s.id)}`, { ...request, method: "DELETE" });
      // Already gone (404) is what was asked.
      if (!res.ok && res.status !== 404) throw await failureOf(res, "DELETE /v2/webhook/subscription");
    }
    return mine.length > 0;
  },
};
