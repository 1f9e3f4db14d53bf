// The calling organization as its API shows it: its record and the limits in force for it.
import type { Database } from "../../../platform/db/client";
import { notFound } from "../../../platform/errors";
import { OrganizationStore } from "../organizations";
import type { OrganizationRow } from "../tables";

export async function getOrganization(db: Database, orgId: string): Promise<OrganizationRow> {
  const org = await new OrganizationStore(db).get(orgId);
  if (!org) throw notFound("Organization not found");
  return org;
}
