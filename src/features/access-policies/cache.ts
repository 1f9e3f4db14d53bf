// The compiled policies this isolate read recently, by organization and id: a request's principal
// names its policy by id (the credential's access_policy_id), and its stores read the policy here.
// An entry lives POLICY_CACHE_TTL_MS; a change through the API (update, delete) drops it at once in
// this isolate, and other isolates see it within the TTL, as they see a revoked API key.
import type { Database } from "../../platform/db/client";
import type { CompiledPolicy } from "./rules";
import { AccessPolicyStore } from "./store";
import { compilePolicy } from "./validate";

export const POLICY_CACHE_TTL_MS = 10_000;
/** Past this many entries, expired ones are swept before another is added. */
const MAX_ENTRIES = 1000;

const cache = new Map<string, { policy: Promise<CompiledPolicy | undefined>; until: number }>();
const keyOf = (orgId: string, id: string) => `${orgId}\u0000${id}`;

/** The organization's policy `id`, compiled (undefined: none of that id in this organization). */
export function cachedPolicy(control: Database, orgId: string, id: string, now = Date.now()): Promise<CompiledPolicy | undefined> {
  const key = keyOf(orgId, id);
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.policy;
  if (cache.size >= MAX_ENTRIES) for (const [k, v] of cache) if (v.until <= now) cache.delete(k);
  const policy = new AccessPolicyStore(control).get(orgId, id).then((row) => (row ? compilePolicy(row).policy : undefined));
  cache.set(key, { policy, until: now + POLICY_CACHE_TTL_MS });
  // A failed read is not remembered.
  policy.catch(() => cache.delete(key));
  return policy;
}

export function forgetPolicy(orgId: string, id: string): void {
  cache.delete(keyOf(orgId, id));
}
