// Brings an alert's FHIR resources and pipelines in step with its row: writes the DetectedIssue
// (and the Flag of an absence), sends the Communications once, starts the pipelines once per
// episode, then marks the alert published. Every step is idempotent (resource ids derive from
// the alert's, executions carry the alert's id as idempotency key), so the cron can repeat a
// publication that failed half-way (publishPending).
import type { PublishedEvent } from "../../platform/events";
import { logger } from "../../platform/observability/log";
import type { OrgContext } from "../../platform/org-context";
import type { Principal } from "../tenancy";
import { dispatchToPipelines } from "../pipelines";
import { type Audience, communication, detectedIssue, flag } from "./fhir-resources";
import { presentAlert } from "./schemas";
import { AlertStore } from "./store";
import type { AlertPipelineRun, AlertRow } from "./tables";
import { ALERT_EVENT } from "./rule";

/** The identity alert evaluation acts as in the FHIR store (audited as such). */
export function alertsPrincipal(orgId: string): Principal {
  return { orgId, keyId: "system:alerts", keyName: "threshold alerts", role: "service", scopes: [] };
}

/**
 * Who "care team" is: the patient's active CareTeam resources (CareTeam.subject = the Patient,
 * status active), addressed as CareTeams; their members read them through their CareTeam.
 */
async function careTeams(ctx: OrgContext, patientId: string): Promise<{ reference: string }[]> {
  const bundle = await ctx.fhir(alertsPrincipal(ctx.orgId)).search("CareTeam", `subject=Patient/${encodeURIComponent(patientId)}&status=active&_count=50`);
  return (bundle.entry ?? []).flatMap((e) => (e.resource?.id ? [{ reference: `CareTeam/${e.resource.id}` }] : []));
}

function audiences(row: AlertRow): Audience[] {
  return row.recipients === "both" ? ["patient", "care_team"] : [row.recipients];
}

async function sendCommunications(ctx: OrgContext, row: AlertRow): Promise<string[]> {
  const fhir = ctx.fhir(alertsPrincipal(ctx.orgId));
  const ids: string[] = [];
  for (const audience of audiences(row)) {
    const to = audience === "patient" ? [{ reference: `Patient/${row.patientId}` }] : await careTeams(ctx, row.patientId);
    const written = await fhir.update(communication(row, audience, to));
    ids.push(written.resource.id as string);
  }
  return ids;
}

/** The alert as pipelines receive it: as the API shows it, with the resources just written. */
function alertPayload(row: AlertRow) {
  const { published: _published, publish_error: _error, ...alert } = presentAlert(row);
  return alert;
}

async function startPipelines(ctx: OrgContext, row: AlertRow): Promise<AlertPipelineRun[]> {
  const attributes: Record<string, string> = { kind: row.kind, severity: row.severity, patient_id: row.patientId, rule_id: row.ruleId };
  if (row.metric) attributes.metric = row.metric;
  if (row.deviceId) attributes.device_id = row.deviceId;
  // Only the pipeline the rule names runs (spec 6.3): another pipeline's alert trigger never sees this rule's alerts.
  const started = await dispatchToPipelines(ctx, { type: ALERT_EVENT, id: row.id, attributes, payload: alertPayload(row) }, row.pipelineId ? [row.pipelineId] : []);
  return started.map((s) => ({ pipeline_id: s.pipeline_id, ...(s.execution_id ? { execution_id: s.execution_id } : {}), ...(s.error ? { error: s.error } : {}) }));
}

export async function publishAlert(ctx: OrgContext, row: AlertRow): Promise<void> {
  const fhir = ctx.fhir(alertsPrincipal(ctx.orgId));
  const resources = { ...row.resources };
  resources.detectedIssue = (await fhir.update(detectedIssue(row))).resource.id as string;
  if (row.kind === "data_absence") resources.flag = (await fhir.update(flag(row))).resource.id as string;
  resources.communications ??= await sendCommunications(ctx, row);
  let pipelineRuns = row.pipelineRuns;
  if (!resources.dispatched) {
    pipelineRuns = await startPipelines(ctx, { ...row, resources });
    resources.dispatched = true;
  }
  await new AlertStore(ctx.db).published(row, { resources, pipelineRuns });
  // Once per alert: its first publication (a repeated one raises the same event id, recorded once).
  if (!row.publishedAt) await ctx.publish([alertRaised(row, resources.detectedIssue)]);
}

/** The `alert.raised` event (docs/webhooks.md). */
function alertRaised(row: AlertRow, detectedIssue: string | undefined): PublishedEvent {
  return {
    type: "alert.raised",
    id: `alert.raised.${row.id}`,
    occurred_at: row.createdAt,
    data: {
      alert_id: row.id,
      rule_id: row.ruleId,
      patient_id: row.patientId,
      kind: row.kind,
      severity: row.severity,
      metric: row.metric,
      device_id: row.deviceId,
      value: row.value,
      limit: row.limit,
      message: row.message,
      started_at: row.startedAt,
      detected_issue_id: detectedIssue ?? null,
    },
  };
}

/** Publishes what is still pending (after a failure, or an ended episode); errors wait for the next tick. */
export async function publishPending(ctx: OrgContext, rows: AlertRow[]): Promise<number> {
  let done = 0;
  for (const row of rows) {
    try {
      await publishAlert(ctx, row);
      done++;
    } catch (e) {
      logger(ctx.env).warn("alert publication failed; the cron retries it", { org: ctx.orgId, alert: row.id, error_message: String(e) });
      await new AlertStore(ctx.db).publishFailed(row, e instanceof Error ? e.message : String(e)).catch(() => undefined);
    }
  }
  return done;
}
