// The device readings the org holds for the last hours, per UTC hour of the reading and metric: the
// sample counts of the hourly rollups (one row per patient, metric, hour and device), summed in SQL.
import { and, eq, gte, sql } from "drizzle-orm";
import type { HourCount } from "../../platform/db/hourly";
import type { OrgData } from "../../platform/org-data";
import { deviceRollups } from "./tables";

/** Readings taken since `from` (ISO), per UTC hour, by metric. */
export function readingsByHour(data: OrgData, from: string): Promise<HourCount[]> {
  const hour = sql<string>`strftime('%Y-%m-%dT%H:00:00Z', ${deviceRollups.bucket} / 1000, 'unixepoch')`;
  return data.db
    .select({ hour, series: deviceRollups.metric, count: sql<number>`sum(${deviceRollups.n})`.mapWith(Number) })
    .from(deviceRollups)
    .where(and(eq(deviceRollups.orgId, data.orgId), gte(deviceRollups.bucket, Date.parse(from))))
    .groupBy(deviceRollups.bucket, deviceRollups.metric);
}
