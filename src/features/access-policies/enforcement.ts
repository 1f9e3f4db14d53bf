// The access policy a principal's stores enforce, as the composition root builds every org store
// with it (src/main/context.ts): none (permitAll, the store's fast paths) for a credential without
// one; otherwise its policy read from this isolate's cache (cache.ts) within the principal's own
// organization, and the Groups its rules name read through the org's store, once per request.
import { ApiError } from "../../platform/errors";
import type { OrgData } from "../../platform/org-data";
import { type AccessPolicy, type FhirExtensions, fhirStoreFor, permitAll } from "../fhir";
import type { Principal } from "../tenancy";
import { cachedPolicy } from "./cache";
import { resourceAccessPolicy } from "./policy";

export function accessPolicyFor(data: OrgData, principal: Principal, extensions: FhirExtensions): AccessPolicy {
  const id = principal.accessPolicyId;
  if (!id) return permitAll;
  return resourceAccessPolicy(principal, {
    // The principal's organization, never another's: a policy of org A is unknown in org B.
    policy: () => cachedPolicy(data.control, principal.orgId, id),
    groupMembers: async (groupIds) => {
      // The Group read as stored (a policy-free store): membership decides, whatever the principal may read of it.
      const store = fhirStoreFor(data, principal, { extensions });
      const members = await Promise.all(groupIds.map((g) => store.groupPatients(g).catch(noGroup)));
      return new Map(groupIds.map((g, i) => [g, new Set(members[i])]));
    },
  });
}

/** A Group that does not exist (or was deleted) has no members; any other failure is the request's. */
function noGroup(e: unknown): string[] {
  if (e instanceof ApiError && e.status === 404) return [];
  throw e;
}
