// The FHIR store's access policy (fhir/access-policy.ts) for a principal an access policy is
// assigned to: its rules (rules.ts) decide reads, searches and writes, filter results, narrow
// searches in their query (a rule's type, criteria and compartment), hide fields from what is
// returned and keep them as stored on writes. The policy and the members of the Groups its rules
// name are read once per store (a request), on first use; a policy that cannot be found (deleted
// since the credential was assigned it, or another organization's) permits nothing.
import type { AccessDecision, AccessPolicy, Resource } from "../fhir";
import type { Principal } from "../tenancy";
import { type CompiledPolicy, type GroupMembers, groupsOf, judge, redacted, restored, searchScopeOf, shows } from "./rules";

export interface PolicySources {
  /** The principal's policy, compiled; undefined when it does not exist in the principal's organization. */
  policy(): Promise<CompiledPolicy | undefined>;
  /** The active Patient members of each Group (a Group not found: none). */
  groupMembers(groupIds: string[]): Promise<GroupMembers>;
}

interface Loaded {
  policy: CompiledPolicy;
  groups: GroupMembers;
}

export function resourceAccessPolicy(principal: Principal, sources: PolicySources): AccessPolicy {
  let loading: Promise<Loaded | undefined> | undefined;
  const load = () => {
    loading ??= (async () => {
      const policy = await sources.policy();
      if (!policy) return undefined;
      const groups = groupsOf(policy);
      return { policy, groups: groups.length ? await sources.groupMembers(groups) : new Map() };
    })();
    return loading;
  };
  const missing: AccessDecision = { permit: false, reason: `the access policy ${principal.accessPolicyId} assigned to this credential does not exist` };
  return {
    permitsAll: false,
    async check(request) {
      const loaded = await load();
      if (!loaded) return missing;
      return judge(loaded.policy, request, loaded.groups);
    },
    async filter(_principal, _action, items, resourceOf) {
      const loaded = await load();
      if (!loaded) return [];
      return items.filter((item) => shows(loaded.policy, resourceOf(item), loaded.groups));
    },
    async searchScope(_principal, types) {
      const loaded = await load();
      // Nothing matches: every branch refused.
      if (!loaded) return [{ anyOf: [] }];
      return searchScopeOf(loaded.policy, types, loaded.groups);
    },
    async redact(_principal, resource: Resource) {
      const loaded = await load();
      return loaded ? redacted(loaded.policy, resource) : resource;
    },
    async restore(_principal, written, current) {
      const loaded = await load();
      return loaded ? restored(loaded.policy, written, current) : written;
    },
  };
}
