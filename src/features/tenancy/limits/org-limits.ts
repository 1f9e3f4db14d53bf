// Effective limits of an organization read from D1, for work started outside a
// request (events, schedules, agents' tools) where no middleware resolved them.
import { database } from "../../../platform/db/client";
import type { Env } from "../../../platform/env";
import { OrganizationStore } from "../organizations";
import { type Limits, resolveLimits } from "./config";

export async function limitsOfOrg(env: Env, orgId: string): Promise<Limits> {
  const org = await new OrganizationStore(database(env.DB)).get(orgId);
  return resolveLimits(env, org?.limits);
}
