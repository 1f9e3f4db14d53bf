// The access policy a user acts under (features/access-policies assigns it; identity owns the
// column). Sessions read their user on every request, so a change applies to the next one.
import type { Database } from "../../platform/db/client";
import type { UserRow } from "./tables";
import { UserStore } from "./users";

const holder = (row: UserRow) => ({ id: row.id, name: row.email, accessPolicyId: row.accessPolicyId });

export const userPolicyAssignments = {
  /** `from`: only if the user acts under it now (an unassignment). Undefined: no such user in the org. */
  async set(control: Database, orgId: string, id: string, accessPolicyId: string | null, from?: string) {
    const row = await new UserStore(control).setAccessPolicy(orgId, id, accessPolicyId, from);
    return row && holder(row);
  },
  async holding(control: Database, orgId: string, accessPolicyId: string) {
    return (await new UserStore(control).holding(orgId, accessPolicyId)).map(holder);
  },
};
