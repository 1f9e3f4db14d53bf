// The store's access policy (access-policy.ts) for a principal's SMART grant: check denies what
// no granted scope covers (a read 404s, a write or a search of a type no scope names 403s naming
// the missing scope), filter leaves out
// of results what none covers. A principal without a grant (an API key) gets permitAll, so its
// stores keep their fast paths.
import type { Principal } from "../../tenancy";
import { type AccessAction, type AccessPolicy, type ScopeBranch, permitAll } from "../access-policy";
import { type ScopeInteraction, scopeGrantOf, scopesPermit, scopesPermitType } from "./grant";

/** A Bulk Data export reads each resource: SMART's `r` (read, not search). */
const INTERACTION_OF: Readonly<Record<AccessAction, ScopeInteraction>> = {
  read: "read",
  search: "search",
  export: "read",
  create: "create",
  update: "update",
  delete: "delete",
};

export function smartScopePolicy(principal: Principal): AccessPolicy {
  if (!principal.fhirGrant) return permitAll;
  const grant = scopeGrantOf(principal.fhirGrant);
  return {
    permitsAll: false,
    check: ({ action, resourceType, resource, patient }) =>
      // A search is judged on its type before it runs (AccessChecks.maySearch), its results one by one.
      action === "search" && !resource
        ? scopesPermitType(grant, { interaction: "search", resourceType })
        : scopesPermit(grant, { interaction: INTERACTION_OF[action], resourceType, ...(resource ? { resource } : {}), ...(patient !== undefined ? { patient } : {}) }),
    // The launch patient's compartment in the query itself: a type only `patient/` scopes name is searched
    // within it, so pages and totals hold what filter keeps (granular conditions are still filtered after).
    searchScope: (_principal, types) => {
      if (!types.length) return undefined;
      // A type no scope names with `s` has no branch: it matches nothing.
      const branches = types.flatMap((resourceType): ScopeBranch[] => {
        const named = grant.scopes.filter((s) => (s.resourceType === "*" || s.resourceType === resourceType) && s.permissions.has("s"));
        if (!named.length) return [];
        return named.every((s) => s.context === "patient") ? [{ resourceType, patients: grant.patient !== undefined ? [grant.patient] : [] }] : [{ resourceType }];
      });
      return branches.length < types.length || branches.some((b) => b.patients) ? [{ anyOf: branches }] : undefined;
    },
    filter: (_principal, action, items, resourceOf) =>
      items.filter((item) => {
        const resource = resourceOf(item);
        return scopesPermit(grant, { interaction: INTERACTION_OF[action], resourceType: resource.resourceType, resource }).permit;
      }),
  };
}
