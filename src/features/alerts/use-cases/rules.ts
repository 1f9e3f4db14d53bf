// Alert rules: create, list, get, replace, delete. A rule must name a Patient (and Device) of the
// org's store and, if any, a pipeline with an alert trigger; a low limit may not sit above a high
// one for the same readings. Saving a rule starts its evaluation afresh (re-armed).
import type { OrgContext } from "../../../platform/org-context";
import { ApiError, type FieldError, notFound, validationFailed } from "../../../platform/errors";
import type { Principal } from "../../tenancy";
import { getPipeline } from "../../pipelines";
import { ALERT_TRIGGER } from "../nodes";
import { ALERT_EVENT } from "../rule";
import { type RuleDraft, conflictProblems } from "../rule";
import { type RuleBodyInput, paramsOf } from "../schemas";
import { type NewRule, RULE_STREAM, type RuleFilter, RuleStore, initialState } from "../store";
import type { AlertRuleRow, AlertRuleStateRow } from "../tables";

export const ruleNotFound = (id: string) => notFound(`Alert rule ${id} not found`, "ALERT_RULE_NOT_FOUND");

const missingAs = async (path: string, check: () => Promise<FieldError | undefined>): Promise<FieldError | undefined> => {
  try {
    return await check();
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 410)) return { path, message: e.message };
    throw e;
  }
};

/** What the body names must exist in this org: the Patient, the Device (of that patient), the pipeline (with an alert trigger). */
async function referenceProblems(ctx: OrgContext, principal: Principal, body: RuleBodyInput): Promise<FieldError[]> {
  const fhir = ctx.fhir(principal);
  const checks = [
    missingAs("patient_id", async () => {
      await fhir.read("Patient", body.patient_id);
      return undefined;
    }),
    body.device_id
      ? missingAs("device_id", async () => {
          const device = (await fhir.read("Device", body.device_id as string)) as { patient?: { reference?: string } };
          const owner = device.patient?.reference;
          return owner && owner !== `Patient/${body.patient_id}` ? { path: "device_id", message: `Device ${body.device_id} belongs to ${owner}` } : undefined;
        })
      : undefined,
    body.pipeline_id
      ? missingAs("pipeline_id", async () => {
          const pipeline = await getPipeline(ctx, body.pipeline_id as string);
          const nodes = (pipeline.definition as { nodes: { type: string; config?: { event_type?: string } }[] }).nodes;
          const triggered = nodes.some((n) => n.type === ALERT_TRIGGER || (n.type === "control.event_trigger" && n.config?.event_type === ALERT_EVENT));
          return triggered ? undefined : { path: "pipeline_id", message: `Pipeline ${body.pipeline_id} has no ${ALERT_TRIGGER} node (or event trigger on ${ALERT_EVENT})` };
        })
      : undefined,
  ];
  return (await Promise.all(checks)).filter((p): p is FieldError => p !== undefined);
}

const draftOf = (r: AlertRuleRow): RuleDraft & { id: string } => ({ id: r.id, kind: r.kind, patient_id: r.patientId, metric: r.metric, device_id: r.deviceId, ...r.params });

async function checked(ctx: OrgContext, principal: Principal, body: RuleBodyInput, selfId?: string): Promise<void> {
  const others = (await new RuleStore(ctx.db).ofPatients(ctx.orgId, [body.patient_id])).filter((r) => r.id !== selfId && r.enabled);
  const problems = [...(await referenceProblems(ctx, principal, body)), ...(body.enabled ? conflictProblems({ ...body, ...paramsOf(body) }, others.map(draftOf)) : [])];
  if (problems.length) throw validationFailed("Invalid alert rule", problems);
}

function rowOf(orgId: string, id: string, body: RuleBodyInput, now: string): NewRule {
  return {
    orgId,
    id,
    name: body.name ?? `${body.kind} ${body.metric ?? `device ${body.device_id}`}`,
    patientId: body.patient_id,
    metric: body.metric ?? null,
    deviceId: body.device_id ?? null,
    kind: body.kind,
    params: paramsOf(body),
    recipients: body.recipients,
    severity: body.severity,
    pipelineId: body.pipeline_id ?? null,
    enabled: body.enabled,
    createdAt: now,
    updatedAt: now,
  };
}

/** An absence rule's state from its start: nothing seen, first look once its span has passed. Value rules start their streams on their first reading. */
function freshState(orgId: string, ruleId: string, body: RuleBodyInput, now: Date): AlertRuleStateRow | undefined {
  if (body.kind !== "data_absence") return undefined;
  const nextCheckAt = body.enabled ? now.getTime() + (body.span_minutes ?? 0) * 60_000 + 1 : null;
  return { ...initialState(), orgId, ruleId, stream: RULE_STREAM, version: 0, nextCheckAt, updatedAt: now.toISOString() };
}

export async function createRule(ctx: OrgContext, principal: Principal, body: RuleBodyInput): Promise<AlertRuleRow> {
  await checked(ctx, principal, body);
  const now = new Date();
  const id = crypto.randomUUID();
  const row = rowOf(ctx.orgId, id, body, now.toISOString());
  await new RuleStore(ctx.db).insert(row, freshState(ctx.orgId, id, body, now));
  return (await new RuleStore(ctx.db).get(ctx.orgId, id)) as AlertRuleRow;
}

export function listRules(ctx: OrgContext, filter: RuleFilter, limit: number, offset: number) {
  return new RuleStore(ctx.db).list(ctx.orgId, filter, limit, offset);
}

export async function getRule(ctx: OrgContext, id: string): Promise<AlertRuleRow> {
  const row = await new RuleStore(ctx.db).get(ctx.orgId, id);
  if (!row) throw ruleNotFound(id);
  return row;
}

export async function replaceRule(ctx: OrgContext, principal: Principal, id: string, body: RuleBodyInput): Promise<AlertRuleRow> {
  const current = await getRule(ctx, id);
  await checked(ctx, principal, body, id);
  const now = new Date();
  const { orgId: _o, id: _i, createdAt: _c, ...changes } = rowOf(ctx.orgId, id, body, now.toISOString());
  if (!(await new RuleStore(ctx.db).replace(ctx.orgId, id, changes, freshState(ctx.orgId, id, body, now)))) throw ruleNotFound(id);
  return { ...current, ...changes };
}

/** Deletes the rule and its state; its alerts stay, as history. */
export async function deleteRule(ctx: OrgContext, id: string): Promise<void> {
  if (!(await new RuleStore(ctx.db).delete(ctx.orgId, id))) throw ruleNotFound(id);
}
