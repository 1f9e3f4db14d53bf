// Oura webhook subscriptions expire (`expiration_time`); one that lapses stops the pushes
// silently. The hourly cron lists the app's subscriptions (`GET /v2/webhook/subscription`, app
// credentials in `x-client-id` / `x-client-secret`) and renews each that expires within a week
// (`PUT /v2/webhook/subscription/renew/{id}`), per Oura's API (the paths of its OpenAPI-generated clients).
import type { PlatformCall } from "../../features/devices/platform-adapter";
import type { SubscriptionRenewal } from "../platform";
import { urlOf } from "../platform";
import { vendorJson } from "../vendor-http";

/** Renew this long before a subscription expires. */
export const RENEW_WITHIN_MS = 7 * 86_400_000;

interface Subscription {
  id: string;
  data_type?: string;
  expiration_time?: string;
}

export async function renewOuraSubscriptions(call: PlatformCall, now: Date): Promise<SubscriptionRenewal> {
  const { clientId, clientSecret } = call.credentials;
  if (!clientId || !clientSecret) return { checked: 0, renewed: [], failed: [{ id: "*", reason: "no client credentials" }] };
  const base = `${urlOf(call.credentials, "api_base_url", "https://api.ouraring.com")}/v2/webhook/subscription`;
  const request = { auth: "none" as const, headers: { "x-client-id": clientId, "x-client-secret": clientSecret } };
  const subscriptions = await vendorJson<Subscription[]>(call, base, request);
  const due = (Array.isArray(subscriptions) ? subscriptions : []).filter((s) => {
    const expires = Date.parse(s.expiration_time ?? "");
    return typeof s.id === "string" && (!Number.isFinite(expires) || expires - now.getTime() <= RENEW_WITHIN_MS);
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
  return { checked: Array.isArray(subscriptions) ? subscriptions.length : 0, renewed, failed };
}
