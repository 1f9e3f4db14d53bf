// The org's pipeline executions of the last hours per UTC hour and status (running, waiting, completed, failed).
import { countsByHour, type HourCount } from "../../platform/db/hourly";
import type { OrgData } from "../../platform/org-data";
import { executions } from "./tables";

/** Executions started since `from` (ISO), per UTC hour, by status. */
export function executionsByHour(data: OrgData, from: string): Promise<HourCount[]> {
  return countsByHour(data.db, executions, { org: executions.orgId, at: executions.startedAt, series: executions.status }, data.orgId, from);
}
