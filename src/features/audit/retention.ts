// The organization's audit retention (audit_settings).
import { eq } from "drizzle-orm";
import type { OrgData } from "../../platform/org-data";
import { auditSettings } from "./tables";

export interface AuditRetention {
  retentionDays: number | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

export async function readRetention(data: OrgData): Promise<AuditRetention> {
  const [row] = await data.db.select().from(auditSettings).where(eq(auditSettings.orgId, data.orgId)).limit(1);
  return row ? { retentionDays: row.retentionDays, updatedAt: row.updatedAt, updatedBy: row.updatedBy } : { retentionDays: null, updatedAt: null, updatedBy: null };
}

export async function writeRetention(data: OrgData, retentionDays: number | null, by: string): Promise<AuditRetention> {
  const updatedAt = new Date().toISOString();
  await data.db
    .insert(auditSettings)
    .values({ orgId: data.orgId, retentionDays, updatedAt, updatedBy: by })
    .onConflictDoUpdate({ target: auditSettings.orgId, set: { retentionDays, updatedAt, updatedBy: by } });
  return { retentionDays, updatedAt, updatedBy: by };
}
