// The access policy a client application's tokens act under (features/access-policies assigns
// it; smart owns the column). Each token carries the policy its client had when it was issued:
// a change applies to tokens issued after it (those before run out within 5 minutes, as a change of
// scopes does); a change of the policy itself applies to every token at once (its rules are read by id).
import type { Database } from "../../platform/db/client";
import { ClientApplicationStore } from "./clients";
import type { ClientApplicationRow } from "./tables";

const holder = (row: ClientApplicationRow) => ({ id: row.id, name: row.name, accessPolicyId: row.accessPolicyId });

export const clientPolicyAssignments = {
  /** `from`: only if the client acts under it now (an unassignment). Undefined: no such client in the org. */
  async set(control: Database, orgId: string, id: string, accessPolicyId: string | null, from?: string) {
    const row = await new ClientApplicationStore(control).setAccessPolicy(orgId, id, accessPolicyId, from);
    return row && holder(row);
  },
  async holding(control: Database, orgId: string, accessPolicyId: string) {
    return (await new ClientApplicationStore(control).holding(orgId, accessPolicyId)).map(holder);
  },
};
