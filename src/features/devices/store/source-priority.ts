// The organization's source priority row (device_source_priorities): which platforms' devices
// count first when two sources report one metric in the same hour.
import { eq } from "drizzle-orm";
import type { OrgData } from "../../../platform/org-data";
import { deviceSourcePriorities } from "../tables";

export interface SourcePriority {
  /** Vitals metric (or "default") → platforms, first wins. */
  priorities: Record<string, string[]>;
  updatedAt: string | null;
  updatedBy: string | null;
}

export const NO_SOURCE_PRIORITY: SourcePriority = { priorities: {}, updatedAt: null, updatedBy: null };

export async function readSourcePriority(data: OrgData): Promise<SourcePriority> {
  const [row] = await data.db.select().from(deviceSourcePriorities).where(eq(deviceSourcePriorities.orgId, data.orgId)).limit(1);
  return row ? { priorities: row.priorities, updatedAt: row.updatedAt, updatedBy: row.updatedBy } : NO_SOURCE_PRIORITY;
}

export async function writeSourcePriority(data: OrgData, priorities: Record<string, string[]>, by: string): Promise<SourcePriority> {
  const row = { orgId: data.orgId, priorities, updatedAt: new Date().toISOString(), updatedBy: by };
  await data.db
    .insert(deviceSourcePriorities)
    .values(row)
    .onConflictDoUpdate({ target: deviceSourcePriorities.orgId, set: { priorities, updatedAt: row.updatedAt, updatedBy: by } });
  return { priorities, updatedAt: row.updatedAt, updatedBy: by };
}
