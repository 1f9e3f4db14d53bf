// The Bulk Data exports the org started over the last hours, per UTC hour and level.
import { countsByHour, type HourCount } from "../../platform/db/hourly";
import type { OrgData } from "../../platform/org-data";
import { bulkExports } from "./tables";

/** Exports started since `from` (ISO), per UTC hour, by level (system, patient, group). */
export function exportsByHour(data: OrgData, from: string): Promise<HourCount[]> {
  return countsByHour(data.db, bulkExports, { org: bulkExports.orgId, at: bulkExports.createdAt, series: bulkExports.level }, data.orgId, from);
}
