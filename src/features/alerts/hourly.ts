// The alerts raised in the org over the last hours, per UTC hour and severity.
import { countsByHour, type HourCount } from "../../platform/db/hourly";
import type { OrgData } from "../../platform/org-data";
import { alerts } from "./tables";

/** Alerts raised since `from` (ISO), per UTC hour, by severity. */
export function alertsByHour(data: OrgData, from: string): Promise<HourCount[]> {
  return countsByHour(data.db, alerts, { org: alerts.orgId, at: alerts.createdAt, series: alerts.severity }, data.orgId, from);
}
