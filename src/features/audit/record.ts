// The one way a management action is audited: recordManagementAction writes its AuditEvent to the
// organization's FHIR audit trail (append-only: clients cannot write or delete AuditEvents), so it is
// searchable on /fhir/r4/<org>/AuditEvent, exported by Bulk Data (_type=AuditEvent) and listed by
// GET /api/audit. Routes get this for free from the middleware (middleware.ts); work outside a
// request (devices' syncs, copilot) calls it directly.
import type { OrgData } from "../../platform/org-data";
import { fhirAuditTrail } from "../fhir";
import type { Principal } from "../tenancy";
import { type ManagementActionInput, managementAuditEvent } from "./event";

/**
 * Returns once the event is durable: the store hands it to the audit queue (a fraction of a
 * millisecond; the pending log in D1 if the queue refuses), so no management response goes out
 * whose audit could still be lost. It is searchable once the queue's consumer has indexed it
 * (about a second, docs/audit.md). `pendingLog`: straight to the pending log (an organization
 * being moved between shards, FhirService.writeAuditEvent).
 */
export async function recordManagementAction(data: OrgData, principal: Principal, input: ManagementActionInput, options: { pendingLog?: boolean } = {}): Promise<void> {
  await fhirAuditTrail(data, principal).write(managementAuditEvent(principal, input), options);
}
