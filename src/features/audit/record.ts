// The one way a management action is audited: recordManagementAction writes its AuditEvent through
// the organization's FHIR store (append-only: clients cannot write or delete AuditEvents), so it is
// searchable on /fhir/r4/<org>/AuditEvent, exported by Bulk Data (_type=AuditEvent) and listed by
// GET /api/audit. Routes get this for free from the middleware (middleware.ts); work outside a
// request (devices' syncs, copilot) calls it directly.
import type { OrgData } from "../../platform/org-data";
import { fhirStoreFor } from "../fhir";
import type { Principal } from "../tenancy/auth/permissions";
import { type ManagementActionInput, managementAuditEvent } from "./event";

/**
 * With `waitUntil` (a request's ExecutionContext) the event is appended after the response, as the
 * store does for reads' audits, so the trail adds no round trip to the request; a failed append is
 * logged. Without it (Durable Objects, the operator purge) the caller waits for it.
 */
export async function recordManagementAction(data: OrgData, principal: Principal, input: ManagementActionInput, options: { waitUntil?: (p: Promise<unknown>) => void } = {}): Promise<void> {
  const event = managementAuditEvent(principal, input);
  const store = fhirStoreFor(data, principal, options.waitUntil ? { waitUntil: options.waitUntil } : {});
  if (!options.waitUntil) return store.writeAuditEvent(event);
  options.waitUntil(
    store.writeAuditEvent(event).catch((e: unknown) => {
      console.error(JSON.stringify({ level: "error", msg: "management audit write failed", action: input.action, error: String(e) }));
    }),
  );
}
