// The calling organization as its API shows it: its record and the limits in force for it.
import type { OrgData } from "../../../platform/org-data";
import { notFound } from "../../../platform/errors";
import { OrganizationStore } from "../organizations";
import type { OrganizationRow } from "../tables";

export async function getOrganization(data: OrgData): Promise<OrganizationRow> {
  const { orgId } = data;
  const org = await new OrganizationStore(data.control).get(orgId);
  if (!org) throw notFound("Organization not found");
  return org;
}
