// Alerts: list (by patient, state, kind, rule), get, acknowledge, resolve. Acknowledging and
// resolving are the clinician's workflow: active → acknowledged → resolved (or active → resolved);
// a resolved alert stays resolved. The change reaches the FHIR resources at once (DetectedIssue
// mitigation, the Flag inactive), or at the next cron tick if the store fails meanwhile.
import type { PublishedEvent } from "../../../platform/events";
import type { OrgContext } from "../../../platform/org-context";
import { conflict, notFound } from "../../../platform/errors";
import type { Principal } from "../../tenancy";
import { publishPending } from "../publish";
import { type AlertFilter, AlertStore } from "../store";
import type { AlertRow } from "../tables";

export const alertNotFound = (id: string) => notFound(`Alert ${id} not found`, "ALERT_NOT_FOUND");

export function listAlerts(ctx: OrgContext, filter: AlertFilter, limit: number, offset: number) {
  return new AlertStore(ctx.db).list(ctx.orgId, filter, limit, offset);
}

export async function getAlert(ctx: OrgContext, id: string): Promise<AlertRow> {
  const row = await new AlertStore(ctx.db).get(ctx.orgId, id);
  if (!row) throw alertNotFound(id);
  return row;
}

const who = (p: Principal) => `${p.keyName} (${p.keyId})`;

async function transition(ctx: OrgContext, id: string, change: (row: AlertRow) => Partial<AlertRow> | "unchanged"): Promise<AlertRow> {
  const store = new AlertStore(ctx.db);
  for (;;) {
    const row = await getAlert(ctx, id);
    const set = change(row);
    if (set === "unchanged") return row;
    const updated = await store.transition(row, set);
    if (!updated) continue; // changed meanwhile (the episode ended, another clinician): decide again
    await publishPending(ctx, [updated]);
    await ctx.publish([transitionEvent(updated)]);
    return (await store.get(ctx.orgId, id)) ?? updated;
  }
}

/** The `alert.acknowledged` or `alert.resolved` event of a transition (docs/webhooks.md). */
function transitionEvent(row: AlertRow): PublishedEvent {
  const resolved = row.state === "resolved";
  const type = resolved ? "alert.resolved" : "alert.acknowledged";
  return {
    type,
    id: `${type}.${row.id}`,
    occurred_at: (resolved ? row.resolvedAt : row.acknowledgedAt) ?? new Date().toISOString(),
    data: { alert_id: row.id, rule_id: row.ruleId, patient_id: row.patientId, by: (resolved ? row.resolvedBy : row.acknowledgedBy) ?? null, note: row.note ?? null },
  };
}

/** active → acknowledged; acknowledging again changes nothing; a resolved alert cannot be. */
export function acknowledgeAlert(ctx: OrgContext, principal: Principal, id: string, note?: string): Promise<AlertRow> {
  return transition(ctx, id, (row) => {
    if (row.state === "resolved") throw conflict(`Alert ${id} is already resolved`, "ALERT_RESOLVED");
    if (row.state === "acknowledged") return "unchanged";
    return { state: "acknowledged", acknowledgedAt: new Date().toISOString(), acknowledgedBy: who(principal), ...(note ? { note } : {}) };
  });
}

/** active or acknowledged → resolved; resolving twice is a 409. */
export function resolveAlert(ctx: OrgContext, principal: Principal, id: string, note?: string): Promise<AlertRow> {
  return transition(ctx, id, (row) => {
    if (row.state === "resolved") throw conflict(`Alert ${id} is already resolved`, "ALERT_RESOLVED");
    return { state: "resolved", resolvedAt: new Date().toISOString(), resolvedBy: who(principal), ...(note ? { note } : {}) };
  });
}
