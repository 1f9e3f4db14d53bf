// OAuth2 client-credentials tokens (RFC 6749 4.4), fetched through the caller's guarded
// fetch and cached until a minute before they expire. Shared by connectors and the
// DICOMweb client; the cache key is the caller's, and must identify the credentials
// (org and connector, or a hash of the secret), never just the token URL.
import type { GuardedFetch } from "./fetch";

export interface ClientCredentialsGrant {
  /** The token endpoint, or a function finding it (SMART discovery) on a cache miss only. */
  tokenUrl: string | (() => Promise<string>);
  clientId: string;
  clientSecret: string;
  scope?: string;
}

export type TokenCache = Map<string, { token: string; until: number }>;

/** A token for `grant`, from `cache` under `key` while valid; `fail` shapes a refusal. */
export async function clientCredentialsToken(
  fetch: GuardedFetch,
  grant: ClientCredentialsGrant,
  cache: TokenCache,
  key: string,
  fail: (message: string) => Error,
): Promise<string> {
  const cached = cache.get(key);
  if (cached && cached.until > Date.now()) return cached.token;
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (grant.scope) form.set("scope", grant.scope);
  const url = typeof grant.tokenUrl === "string" ? grant.tokenUrl : await grant.tokenUrl();
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
      authorization: `Basic ${btoa(`${grant.clientId}:${grant.clientSecret}`)}`,
    },
    body: form,
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number };
  if (!res.ok || !body.access_token) throw fail(`Token request failed with HTTP ${res.status}`);
  // Renew a minute early so a token never expires mid-call.
  cache.set(key, { token: body.access_token, until: Date.now() + Math.max(0, (body.expires_in ?? 300) - 60) * 1000 });
  return body.access_token;
}
