// The audit retention purge, run only by an operator (`npm run admin -- purge-audit`): erases the
// organization's AuditEvents older than its retention and leaves an AuditEvent saying so. An org
// whose retention is "keep" (the default) is refused: nothing is ever purged by default.
import type { OrgContexts } from "../../../platform/org-context";
import { ApiError } from "../../../platform/errors";
import { fhirAuditTrail } from "../../fhir";
import { operatorPrincipal } from "../operators";
import { recordManagementAction } from "../record";
import { readRetention } from "../retention";

export async function purgeExpiredAudits(contexts: OrgContexts, orgId: string, now = Date.now()): Promise<{ org_id: string; retention_days: number; before: string; purged: number }> {
  const data = await contexts.forOrg(orgId);
  const { retentionDays } = await readRetention(data);
  const principal = operatorPrincipal(orgId);
  if (retentionDays === null) {
    await recordManagementAction(data, principal, { action: "audit.purge", entityId: orgId, outcome: "4", reason: "retention is keep: nothing purged" });
    throw new ApiError(409, "AUDIT_RETENTION_KEEP", "The organization keeps its AuditEvents (no retention set): nothing to purge");
  }
  const before = new Date(now - retentionDays * 86_400_000).toISOString();
  const purged = await fhirAuditTrail(data, principal).purge(before);
  await recordManagementAction(data, principal, { action: "audit.purge", entityId: orgId, outcome: "0", detail: { before, purged: String(purged), retention_days: String(retentionDays) } });
  return { org_id: orgId, retention_days: retentionDays, before, purged };
}
