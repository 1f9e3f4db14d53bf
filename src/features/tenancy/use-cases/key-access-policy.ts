// The access policy an API key acts under (features/access-policies assigns it; tenancy owns the
// column). A change drops the key from this isolate's key cache at once; other isolates see it
// within the cache's lifetime (KEY_CACHE_TTL_MS, 10 s), as a revocation.
import type { Database } from "../../../platform/db/client";
import { ApiKeyStore } from "../api-keys";
import { forgetCachedKey } from "../middleware/auth";
import type { ApiKeyRow } from "../tables";

export interface PolicyHolder {
  id: string;
  name: string;
  accessPolicyId: string | null;
}

const holder = (row: ApiKeyRow): PolicyHolder => ({ id: row.id, name: row.name, accessPolicyId: row.accessPolicyId });

export const apiKeyPolicyAssignments = {
  /** `from`: only if the key acts under it now (an unassignment). Undefined: no such live key in the org. */
  async set(control: Database, orgId: string, id: string, accessPolicyId: string | null, from?: string): Promise<PolicyHolder | undefined> {
    const row = await new ApiKeyStore(control).setAccessPolicy(orgId, id, accessPolicyId, from);
    if (row) forgetCachedKey(row.keyHash);
    return row && holder(row);
  },
  async holding(control: Database, orgId: string, accessPolicyId: string): Promise<PolicyHolder[]> {
    return (await new ApiKeyStore(control).holding(orgId, accessPolicyId)).map(holder);
  },
};
