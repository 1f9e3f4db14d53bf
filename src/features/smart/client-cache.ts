// The key set each client's assertions verify against, kept per isolate: jose's remote JWK Set
// caches the client's jwks_url (10 minutes, refetched on an unknown kid at most every 30 s) and
// fetches it through the deployment's outbound guard (the caller's fetch), so a jwks_url cannot
// reach a private address. One instance per client lives here; a change to the client's
// registration drops it.
import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";
import type { ClientApplicationRow } from "./tables";

export type KeySetFetch = (url: string, init: RequestInit) => Promise<Response>;

const remote = new Map<string, { url: string; keys: JWTVerifyGetKey }>();

export function clientKeySet(client: ClientApplicationRow, fetchKeys: KeySetFetch): JWTVerifyGetKey {
  if (client.jwks) return createLocalJWKSet(client.jwks);
  const url = client.jwksUrl ?? "";
  const hit = remote.get(client.id);
  if (hit && hit.url === url) return hit.keys;
  const keys = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cacheMaxAge: 10 * 60_000, cooldownDuration: 30_000, [customFetch]: fetchKeys });
  remote.set(client.id, { url, keys });
  return keys;
}

export function forgetClient(id: string): void {
  remote.delete(id);
}
