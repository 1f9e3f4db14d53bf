// Effective limits of an organization read from D1, for work started outside a
// request (events, schedules, agents' tools) where no middleware resolved them.
import type { OrgData } from "../../../platform/org-data";
import { OrganizationStore } from "../organizations";
import { type Limits, resolveLimits } from "./config";

export async function limitsOfOrg(data: OrgData): Promise<Limits> {
  const org = await new OrganizationStore(data.control).get(data.orgId);
  return resolveLimits(data.env, org?.limits);
}
