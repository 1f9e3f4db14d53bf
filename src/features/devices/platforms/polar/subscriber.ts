// Polar AccessLink's webhook, the org's subscriber (`PUT|GET|DELETE …/training_platform/subscriber`):
// exactly one per client, managed with the client's Basic credentials (AccessLink v3
// `POST|GET /v3/webhooks`, `PATCH|DELETE /v3/webhooks/{id}`; reference 1.5). Creating it makes
// Polar PING the url, which must answer 200 or nothing is created, and answers the
// `signature_secret_key` once: it is kept as the integration's `webhook_signature_secret`, which
// the webhook's signatures are checked with. A webhook that exists is patched to the endpoint and
// events instead (its key stays; a lost key needs DELETE, then PUT). A client's webhook that
// points at another organization's endpoint (two organizations sharing one AccessLink client) is
// not this one's: GET and DELETE do not see it and PUT refuses to move it (409).
import { type PlatformCall, PlatformError } from "../../platform-adapter";
import { conflict } from "../../../../platform/errors";
import { type SubscriberSpec, type SubscriberState, type SubscriberTarget, urlOf } from "../platform";
import { basicAuth, failureOf, vendorCall, vendorJson } from "../vendor-http";

/** The events we handle (polar/adapter.ts); Polar warns SLEEP may not be delivered, hence the sleep pull on sync. */
export const POLAR_WEBHOOK_EVENTS = ["EXERCISE", "SLEEP"] as const;

interface PolarWebhook {
  id?: string;
  events?: string[];
  url?: string;
  signature_secret_key?: string;
}

function clientApi(call: PlatformCall) {
  const { clientId, clientSecret } = call.credentials;
  if (!clientId || !clientSecret) throw new PlatformError("unauthorized", "no Polar client credentials configured");
  return {
    base: `${urlOf(call.credentials, "api_base_url", "https://www.polaraccesslink.com")}/v3/webhooks`,
    headers: { authorization: basicAuth(clientId, clientSecret), "content-type": "application/json" },
  };
}

/** The client's webhook, or undefined. `data` is one object in Polar's swagger; a list is read too. */
async function current(call: PlatformCall): Promise<PolarWebhook | undefined> {
  const { base, headers } = clientApi(call);
  const res = await vendorCall(call, base, { auth: "none", headers });
  if (res.status === 404 || res.status === 204) return undefined;
  if (!res.ok) throw await failureOf(res, "GET /v3/webhooks");
  const data = ((await res.json().catch(() => ({}))) as { data?: PolarWebhook | PolarWebhook[] }).data;
  const hook = Array.isArray(data) ? data[0] : data;
  return hook?.id ? hook : undefined;
}

/** Ours: at the target, or at this organization's webhook path under another base (PUBLIC_BASE_URL moved). */
const isOurs = (hook: PolarWebhook, target: SubscriberTarget) => hook.url === target.endpointUri || Boolean(hook.url?.endsWith(`/webhooks/devices/training_platform/${encodeURIComponent(target.orgId)}`));

const stateOf = (hook: PolarWebhook, fallbackUrl: string): SubscriberState => ({
  name: String(hook.id),
  state: "ACTIVE",
  endpointUri: hook.url ?? fallbackUrl,
  dataTypes: hook.events ?? [],
});

export const polarSubscriber: SubscriberSpec = {
  async put(call, target) {
    const { base, headers } = clientApi(call);
    const body = JSON.stringify({ events: POLAR_WEBHOOK_EVENTS, url: target.endpointUri });
    const existing = await current(call);
    if (existing && !isOurs(existing, target)) throw conflict("Polar allows one webhook per client, and this client's points at another endpoint: remove it there first", "SUBSCRIBER_CONFLICT");
    if (existing) {
      const patched = await vendorJson<{ data?: PolarWebhook }>(call, `${base}/${encodeURIComponent(String(existing.id))}`, { auth: "none", method: "PATCH", headers, body });
      return { ...stateOf({ ...existing, ...patched.data }, target.endpointUri), secretSet: Boolean(call.credentials.extra?.webhook_signature_secret), created: false };
    }
    const created = (await vendorJson<{ data?: PolarWebhook }>(call, base, { auth: "none", method: "POST", headers, body })).data ?? {};
    if (!created.id || !created.signature_secret_key) throw new PlatformError("invalid", "Polar created the webhook without an id or signature_secret_key");
    return { ...stateOf(created, target.endpointUri), secretSet: true, created: true, issuedCredentials: { webhook_signature_secret: created.signature_secret_key } };
  },
  async get(call, target) {
    const hook = await current(call);
    if (!hook || !isOurs(hook, target)) return undefined;
    return { ...stateOf(hook, target.endpointUri), secretSet: Boolean(call.credentials.extra?.webhook_signature_secret) };
  },
  async remove(call, target) {
    const hook = await current(call);
    if (!hook || !isOurs(hook, target)) return false;
    const { base, headers } = clientApi(call);
    const res = await vendorCall(call, `${base}/${encodeURIComponent(String(hook.id))}`, { auth: "none", method: "DELETE", headers });
    if (!res.ok && res.status !== 404) throw await failureOf(res, "DELETE /v3/webhooks");
    return true;
  },
};
