// The alerts API's zod schemas (validation and OpenAPI) and the presenters of rules and alerts.
import { z } from "@hono/zod-openapi";
import { PageQuery } from "../../platform/http/schemas";
import { ALERT_KINDS, DIRECTIONS, RECIPIENTS, type RuleParams, SEVERITIES, effectiveHysteresis, ruleProblems } from "./rule";
import { ALERT_STATES, type AlertRow, type AlertRuleRow } from "./tables";

const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;
const fhirId = (what: string) => z.string().regex(FHIR_ID, `A FHIR ${what} id ([A-Za-z0-9-.], at most 64)`);

export const RuleBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional().openapi({ description: "Default: the kind and metric" }),
    patient_id: fhirId("Patient").openapi({ description: "The Patient whose readings the rule watches (of this organization)" }),
    metric: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, "A metric name such as heart_rate or spo2")
      .nullish()
      .openapi({ description: "The reading metric (or a component's, e.g. systolic); required except for data_absence on a device" }),
    device_id: fhirId("Device").nullish().openapi({ description: "Only readings of this Device; omitted: every device of the patient" }),
    kind: z.enum(ALERT_KINDS),
    threshold: z.number().finite().optional().openapi({ description: "high_value, low_value, score_below: the limit, in the metric's unit" }),
    hysteresis: z.number().finite().optional().openapi({ description: "Re-arm margin: back inside the limit by this much (default 5% of threshold or amount)" }),
    amount: z.number().finite().optional().openapi({ description: "rapid_change: the change that fires" }),
    direction: z.enum(DIRECTIONS).optional().openapi({ description: "rapid_change: rise, drop or either (default)" }),
    span_minutes: z.number().int().optional().openapi({ description: "rapid_change: window of the change (1..10080); data_absence: silence that fires (5..43200)" }),
    recipients: z.enum(RECIPIENTS).default("care_team").openapi({ description: "Who the Communication goes to: the patient, the patient's active CareTeams, or both" }),
    severity: z.enum(SEVERITIES).default("moderate"),
    pipeline_id: z.string().uuid().nullish().openapi({ description: "A pipeline with an alert trigger, started once per episode of this rule (only rules naming a pipeline start it)" }),
    enabled: z.boolean().default(true),
  })
  .strict()
  .superRefine((body, ctx) => {
    for (const p of ruleProblems(body)) ctx.addIssue({ code: "custom", path: [p.path], message: p.message });
  })
  .openapi("AlertRuleInput");

export type RuleBodyInput = z.infer<typeof RuleBody>;

export const AlertRule = z
  .object({
    id: z.string(),
    name: z.string(),
    patient_id: z.string(),
    metric: z.string().nullable(),
    device_id: z.string().nullable(),
    kind: z.enum(ALERT_KINDS),
    threshold: z.number().optional(),
    hysteresis: z.number().optional(),
    effective_hysteresis: z.number().optional().openapi({ description: "The re-arm margin in force (value kinds and rapid_change)" }),
    amount: z.number().optional(),
    direction: z.enum(DIRECTIONS).optional(),
    span_minutes: z.number().int().optional(),
    recipients: z.enum(RECIPIENTS),
    severity: z.enum(SEVERITIES),
    pipeline_id: z.string().nullable(),
    enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AlertRule");

export const RuleListQuery = PageQuery.extend({
  patient_id: z.string().optional().openapi({ description: "Only this patient's rules" }),
  device_id: z.string().optional().openapi({ description: "Only rules on this device (a device panel's rules)" }),
  metric: z.string().optional(),
  kind: z.enum(ALERT_KINDS).optional(),
});

export const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export const presentRule = (r: AlertRuleRow): z.infer<typeof AlertRule> => ({
  id: r.id,
  name: r.name,
  patient_id: r.patientId,
  metric: r.metric,
  device_id: r.deviceId,
  kind: r.kind,
  ...r.params,
  ...(r.kind === "data_absence" ? {} : { effective_hysteresis: effectiveHysteresis(r.kind, r.params) }),
  recipients: r.recipients,
  severity: r.severity,
  pipeline_id: r.pipelineId,
  enabled: r.enabled,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/** The kind-specific numbers of a body, as stored. */
export function paramsOf(body: RuleBodyInput): RuleParams {
  const { threshold, hysteresis, amount, direction, span_minutes } = body;
  return Object.fromEntries(Object.entries({ threshold, hysteresis, amount, direction, span_minutes }).filter(([, v]) => v !== undefined));
}

export const Alert = z
  .object({
    id: z.string(),
    rule_id: z.string(),
    patient_id: z.string(),
    kind: z.enum(ALERT_KINDS),
    metric: z.string().nullable(),
    device_id: z.string().nullable(),
    severity: z.enum(SEVERITIES),
    state: z.enum(ALERT_STATES),
    message: z.string(),
    value: z.number().nullable().openapi({ description: "The breaching value, the change (rapid_change) or the silence in minutes (data_absence)" }),
    limit: z.number().nullable(),
    observation_ids: z.array(z.string()).openapi({ description: "The Observations the alert implicates" }),
    started_at: z.string().openapi({ description: "When the excursion began: the breaching reading's time, or the last reading before the silence" }),
    episode_ended_at: z.string().nullable().openapi({ description: "When readings returned to normal (the rule re-armed); null while the episode lasts" }),
    recipients: z.enum(RECIPIENTS),
    resources: z.object({ detected_issue: z.string().optional(), communications: z.array(z.string()).optional(), flag: z.string().optional() }),
    pipeline_runs: z.array(z.object({ pipeline_id: z.string(), execution_id: z.string().optional(), error: z.object({ code: z.string(), message: z.string() }).optional() })),
    published: z.boolean().openapi({ description: "The FHIR resources and pipeline runs are in step with the alert (false while a failed publication waits for the cron)" }),
    publish_error: z.string().nullable().openapi({ description: "Why the last publication failed, if it did" }),
    acknowledged_at: z.string().nullable(),
    acknowledged_by: z.string().nullable(),
    resolved_at: z.string().nullable(),
    resolved_by: z.string().nullable(),
    note: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Alert");

export const AlertListQuery = PageQuery.extend({
  patient_id: z.string().optional(),
  state: z.enum(ALERT_STATES).optional(),
  kind: z.enum(ALERT_KINDS).optional(),
  rule_id: z.string().optional(),
});

export const AlertActionBody = z.object({ note: z.string().max(2000).optional() }).strict().openapi("AlertAction");

export const presentAlert = (r: AlertRow): z.infer<typeof Alert> => ({
  id: r.id,
  rule_id: r.ruleId,
  patient_id: r.patientId,
  kind: r.kind,
  metric: r.metric,
  device_id: r.deviceId,
  severity: r.severity,
  state: r.state,
  message: r.message,
  value: r.value,
  limit: r.limit,
  observation_ids: r.observationIds,
  started_at: r.startedAt,
  episode_ended_at: r.episodeEndedAt,
  recipients: r.recipients,
  resources: {
    ...(r.resources.detectedIssue ? { detected_issue: `DetectedIssue/${r.resources.detectedIssue}` } : {}),
    ...(r.resources.communications ? { communications: r.resources.communications.map((id) => `Communication/${id}`) } : {}),
    ...(r.resources.flag ? { flag: `Flag/${r.resources.flag}` } : {}),
  },
  pipeline_runs: r.pipelineRuns,
  published: r.publishedAt !== null,
  publish_error: r.publishError,
  acknowledged_at: r.acknowledgedAt,
  acknowledged_by: r.acknowledgedBy,
  resolved_at: r.resolvedAt,
  resolved_by: r.resolvedBy,
  note: r.note,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
