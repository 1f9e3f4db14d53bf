// Which issuers an organization may configure. Pure (the outbound policy is passed), so it is unit tested.
import { checkUrl, type OutboundPolicy, PUBLIC_ONLY } from "../../../platform/outbound/policy";

/**
 * Whether the service may use `raw` as an issuer: an absolute https URL without credentials, query
 * or fragment, that the outbound guard lets the service reach; plain http only for a host that is
 * not public and that OUTBOUND_ALLOW lists (a loopback or on-premises IdP). Pure: the policy is passed.
 */
export function issuerProblem(raw: string, policy: OutboundPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "The issuer is not an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "The issuer must be an https URL";
  if (url.username || url.password || url.search || url.hash) return "The issuer must not carry credentials, a query or a fragment";
  const verdict = checkUrl(url, policy);
  if (!verdict.ok) return `The issuer cannot be reached: ${verdict.reason}`;
  if (url.protocol === "http:" && checkUrl(url, PUBLIC_ONLY).ok) return "The issuer must be https (plain http is accepted only for a loopback or on-premises host that OUTBOUND_ALLOW lists)";
  return undefined;
}
