// Deliveries to a URL the destination owns (customer webhooks, FHIR rest-hooks): through the
// outbound guard on every attempt, signed per the Standard Webhooks specification when the
// destination has secrets (webhook-id = the delivery id, stable across retries; webhook-timestamp
// = this attempt's time; one v1 signature per secret during a rotation), by the standardwebhooks package.
import { Webhook } from "standardwebhooks";
import { outboundFetch } from "../../../platform/outbound/fetch";
import { checkUrl, destinationNotAllowed, outboundPolicyOf } from "../../../platform/outbound/policy";
import { failed } from "../classify";
import type { Delivery, Transport } from "../model";
import { sendHttp } from "./http";

/** The Standard Webhooks headers of one attempt, signed with every secret (newest first). */
export function signatureHeaders(d: Delivery, now: Date): Record<string, string> {
  if (!d.destination.signing_secrets.length) return {};
  const signatures = d.destination.signing_secrets.map((secret) => new Webhook(secret).sign(d.message.id, now, d.message.body));
  return { "webhook-id": d.message.id, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signatures.join(" ") };
}

export const urlTransport: Transport = {
  async deliver(ctx, d) {
    if (d.destination.target.kind !== "url") return failed("configuration", "Not a URL destination");
    const url = d.destination.target.url;
    const fetch = outboundFetch(ctx.env);
    return sendHttp((path, init) => fetch(path ? new URL(path, url).href : url, init), d, signatureHeaders(d, new Date()));
  },
  async checkTarget(ctx, target) {
    if (target.kind !== "url") return undefined;
    const verdict = checkUrl(target.url, outboundPolicyOf(ctx.env));
    return verdict.ok ? undefined : destinationNotAllowed(verdict.reason, [{ path: "target.url", message: verdict.reason }]);
  },
};
