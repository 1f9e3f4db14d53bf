// The key set each client's assertions verify against, kept per isolate: jose's remote JWK Set
// caches and refetches the client's jwks_url itself (on an unknown kid, rate-limited), so one
// instance per client lives here; a change to the client's registration drops it.
import { createLocalJWKSet, createRemoteJWKSet, type JWTVerifyGetKey } from "jose";
import type { ClientApplicationRow } from "./tables";

const remote = new Map<string, { url: string; keys: JWTVerifyGetKey }>();

export function clientKeySet(client: ClientApplicationRow): JWTVerifyGetKey {
  if (client.jwks) return createLocalJWKSet(client.jwks);
  const url = client.jwksUrl ?? "";
  const hit = remote.get(client.id);
  if (hit && hit.url === url) return hit.keys;
  const keys = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000 });
  remote.set(client.id, { url, keys });
  return keys;
}

export function forgetClient(id: string): void {
  remote.delete(id);
}
