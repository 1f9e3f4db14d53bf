// The org's platform credentials as the webhook path and its consumer read them: cached per isolate for a short
// TTL, so an acknowledgement costs no D1 read and no decryption. A delivery that fails
// verification against cached credentials is checked again against fresh ones (a rotated secret
// is honoured at once); a tightened requirement (a Garmin signing secret added) applies within
// the TTL, as the consent policy's `knownReadEnforcement` does.
import type { PlatformCredentials } from "../../platform-adapter";
import type { OrgContext } from "../../../../platform/org-context";

export const WEBHOOK_CREDENTIALS_TTL_MS = 10_000;
const cache = new Map<string, { credentials: PlatformCredentials; until: number }>();

export interface CredentialsRead {
  readonly credentials: PlatformCredentials | undefined;
  /** True when they came from this isolate's cache (worth a fresh read if they fail). */
  readonly cached: boolean;
}

/** The org's credentials for `kind`; `fresh` skips the cache. An unconfigured platform is never cached. */
export async function webhookCredentials(data: OrgContext, kind: string, fresh = false, now = Date.now()): Promise<CredentialsRead> {
  const key = `${data.orgId}\u0000${kind}`;
  const hit = fresh ? undefined : cache.get(key);
  if (hit && hit.until > now) return { credentials: hit.credentials, cached: true };
  const credentials = await data.platformServices.credentialsFor(data, kind);
  if (credentials) cache.set(key, { credentials, until: now + WEBHOOK_CREDENTIALS_TTL_MS });
  else cache.delete(key);
  return { credentials, cached: false };
}

/** Drops this isolate's cached credentials (tests that reconfigure a platform in place). */
export function forgetWebhookCredentials(): void {
  cache.clear();
}
