// The store's access policy (access-policy.ts) for a principal's SMART grant: check denies what
// no granted scope covers (a read 404s, a write or a search of a type no scope names 403s naming
// the missing scope), filter leaves out
// of results what none covers. A principal without a grant (an API key) gets permitAll, so its
// stores keep their fast paths.
import type { Principal } from "../../tenancy";
import { type AccessAction, type AccessPolicy, type ScopeBranch, permitAll } from "../access-policy";
import { R4_DEFINITIONS } from "../definitions";
import { type ScopeGrant, type ScopeInteraction, scopeGrantOf, scopesPermit, scopesPermitType } from "./grant";
import type { ResourceScope } from "./syntax";

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
    // What the scopes grant, in the query itself, so pages and totals hold what filter keeps: a
    // type only `patient/` scopes name is searched within the launch patient's compartment, and a
    // granular scope's conditions (`?category=...`) are the search's own token conditions.
    searchScope: (_principal, types) => {
      if (!types.length) return undefined;
      // A type no scope names with `s` has no branch: it matches nothing.
      const branches = types.flatMap((resourceType) => searchBranchesOf(grant, resourceType));
      return branches.every((b) => b.query === undefined && b.patients === undefined) && new Set(branches.map((b) => b.resourceType)).size === types.length ? undefined : [{ anyOf: branches }];
    },
    filter: (_principal, action, items, resourceOf) =>
      items.filter((item) => {
        const resource = resourceOf(item);
        return scopesPermit(grant, { interaction: INTERACTION_OF[action], resourceType: resource.resourceType, resource }).permit;
      }),
  };
}

/**
 * The query branches of a search of `resourceType` under the grant: one per scope naming it with
 * `s` (any of them admits), or a single unconditioned one when a `user/` or `system/` scope without
 * conditions names it (it admits everything). A condition on a parameter whose search definition
 * is not the element of the same name (what meetsConditions reads) stays out of the query: the
 * branch is then wider, and filter still thins the page.
 */
function searchBranchesOf(grant: ScopeGrant, resourceType: string): ScopeBranch[] {
  const named = grant.scopes.filter((s) => (s.resourceType === "*" || s.resourceType === resourceType) && s.permissions.has("s"));
  const branches = named.map((s): ScopeBranch => {
    const query = queryOf(s, resourceType);
    return { resourceType, ...(query !== undefined ? { query } : {}), ...(s.context === "patient" ? { patients: grant.patient !== undefined ? [grant.patient] : [] } : {}) };
  });
  if (branches.some((b) => b.query === undefined && b.patients === undefined)) return [{ resourceType }];
  return branches;
}

/** A granular scope's conditions as a search query of `resourceType` (undefined: none, or not expressible exactly). */
function queryOf(scope: ResourceScope, resourceType: string): string | undefined {
  if (!scope.conditions.length) return undefined;
  if (!scope.conditions.every((c) => R4_DEFINITIONS.searchParam(resourceType, c.param)?.expression === `${resourceType}.${c.param}`)) return undefined;
  const query = new URLSearchParams();
  for (const c of scope.conditions) query.append(c.param, c.system === undefined ? (c.code ?? "") : `${c.system}|${c.code ?? ""}`);
  return query.toString();
}
