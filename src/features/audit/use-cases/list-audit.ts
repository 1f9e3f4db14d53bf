// GET /api/audit: the organization's AuditEvents (management actions and FHIR interactions), newest
// first, filtered by actor, action, entity type, outcome and period: a FHIR AuditEvent search on the
// org's store, so it sees exactly what /fhir/r4/<org>/AuditEvent and Bulk Data export see.
import { badRequest } from "../../../platform/errors";
import type { OrgContext } from "../../../platform/org-context";
import { permitAll } from "../../fhir";
import type { Resource } from "../../fhir";
import type { Principal } from "../../tenancy";

export interface AuditFilter {
  actor?: string;
  action?: string;
  entity_type?: string;
  outcome?: "success" | "failure";
  since?: string;
  until?: string;
  limit: number;
  offset: number;
}

/** How deep offset paging reaches (the store's largest page); further back: FHIR search or Bulk export. */
export const MAX_AUDIT_WINDOW = 1000;

export function auditQuery(f: AuditFilter): URLSearchParams {
  const q = new URLSearchParams({ _sort: "-date", _total: "accurate", _count: String(f.offset + f.limit) });
  if (f.actor) q.append("altid", f.actor);
  if (f.action) q.append("subtype", f.action);
  if (f.entity_type) q.append("entity-type", f.entity_type);
  if (f.outcome) q.append("outcome", f.outcome === "success" ? "0" : "4,8,12");
  if (f.since) q.append("date", `ge${f.since}`);
  if (f.until) q.append("date", `le${f.until}`);
  return q;
}

export async function listAuditEvents(ctx: OrgContext, principal: Principal, f: AuditFilter): Promise<{ events: Resource[]; total: number }> {
  if (f.offset + f.limit > MAX_AUDIT_WINDOW) throw badRequest(`offset + limit may not pass ${MAX_AUDIT_WINDOW}; page further with /fhir/r4/{org}/AuditEvent or export _type=AuditEvent`);
  // The whole trail, as the store shows it without the consent policy (which guards patients' records, not the log).
  const bundle = await ctx.fhir(principal, { policy: permitAll }).search("AuditEvent", auditQuery(f));
  const events = (bundle.entry ?? []).flatMap((e) => (e.resource ? [e.resource] : [])).slice(f.offset);
  return { events, total: bundle.total ?? events.length };
}
