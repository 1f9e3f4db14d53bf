// The one way a management action is audited: recordManagementAction writes its AuditEvent through
// the organization's FHIR store (append-only: clients cannot write or delete AuditEvents), so it is
// searchable on /fhir/r4/<org>/AuditEvent, exported by Bulk Data (_type=AuditEvent) and listed by
// GET /api/audit. Routes get this for free from the middleware (middleware.ts); work outside a
// request (devices' syncs, copilot) calls it directly.
import type { OrgData } from "../../platform/org-data";
import { fhirStoreFor } from "../fhir";
import type { Principal } from "../tenancy/auth/permissions";
import { type ManagementActionInput, managementAuditEvent } from "./event";

export async function recordManagementAction(data: OrgData, principal: Principal, input: ManagementActionInput): Promise<void> {
  await fhirStoreFor(data, principal).writeAuditEvent(managementAuditEvent(principal, input));
}
