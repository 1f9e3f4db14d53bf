// What an alert rule is: its kinds, their numbers, and the checks a rule must pass beyond its
// schema (the kind's required numbers, and a low limit that would sit above a high one). Pure.

/** The event type a firing alert dispatches to pipelines (the alert trigger matches it). */
export const ALERT_EVENT = "device.alert";

export const ALERT_KINDS = ["high_value", "low_value", "rapid_change", "data_absence", "score_below"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const RECIPIENTS = ["patient", "care_team", "both"] as const;
export type Recipients = (typeof RECIPIENTS)[number];

export const SEVERITIES = ["high", "moderate", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const DIRECTIONS = ["rise", "drop", "either"] as const;
export type Direction = (typeof DIRECTIONS)[number];

export interface RuleParams {
  threshold?: number;
  hysteresis?: number;
  amount?: number;
  direction?: Direction;
  span_minutes?: number;
}

/** Where a rule looks: one metric (of any device, or of one device), or every metric of one device. */
export interface RuleScope {
  patient_id: string;
  metric?: string | null;
  device_id?: string | null;
}

export interface RuleDraft extends RuleScope, RuleParams {
  kind: AlertKind;
}

export interface FieldProblem {
  path: string;
  message: string;
}

/** The fields each kind needs, and the ones it must not carry (so a typo is a 400, not a silent no-op). */
const NEEDS: Record<AlertKind, (keyof RuleParams)[]> = {
  high_value: ["threshold"],
  low_value: ["threshold"],
  score_below: ["threshold"],
  rapid_change: ["amount", "span_minutes"],
  data_absence: ["span_minutes"],
};
const ALLOWS: Record<AlertKind, (keyof RuleParams)[]> = {
  high_value: ["threshold", "hysteresis"],
  low_value: ["threshold", "hysteresis"],
  score_below: ["threshold", "hysteresis"],
  rapid_change: ["amount", "span_minutes", "direction", "hysteresis"],
  data_absence: ["span_minutes"],
};

/** Spans: rapid change within a week; silence of five minutes to thirty days. */
export const SPAN_LIMITS: Record<"rapid_change" | "data_absence", [number, number]> = { rapid_change: [1, 7 * 24 * 60], data_absence: [5, 30 * 24 * 60] };

/** Metrics that are scores (readiness, recovery, sleep scores, body battery): the only ones score_below watches. */
export function isScoreMetric(metric: string): boolean {
  return metric.endsWith("_score") || metric === "body_battery";
}

/** Problems of one rule on its own. */
export function ruleProblems(rule: RuleDraft): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const field of NEEDS[rule.kind]) if (rule[field] === undefined) problems.push({ path: field, message: `Required for a ${rule.kind} rule` });
  for (const field of ["threshold", "hysteresis", "amount", "direction", "span_minutes"] as const) {
    if (rule[field] !== undefined && !ALLOWS[rule.kind].includes(field)) problems.push({ path: field, message: `Not used by a ${rule.kind} rule` });
  }
  if (rule.kind !== "data_absence" && !rule.metric) problems.push({ path: "metric", message: `A ${rule.kind} rule watches one metric` });
  if (rule.kind === "data_absence" && !rule.metric && !rule.device_id) problems.push({ path: "metric", message: "A data_absence rule needs a metric, a device_id, or both" });
  if (rule.kind === "score_below" && rule.metric && !isScoreMetric(rule.metric)) {
    problems.push({ path: "metric", message: `${rule.metric} is not a score (score metrics end in _score, or body_battery); use low_value` });
  }
  if (rule.kind === "rapid_change" || rule.kind === "data_absence") {
    const [min, max] = SPAN_LIMITS[rule.kind];
    if (rule.span_minutes !== undefined && (rule.span_minutes < min || rule.span_minutes > max)) problems.push({ path: "span_minutes", message: `Between ${min} and ${max} minutes` });
  }
  if (rule.amount !== undefined && rule.amount <= 0) problems.push({ path: "amount", message: "Must be greater than 0" });
  if (rule.hysteresis !== undefined && rule.hysteresis < 0) problems.push({ path: "hysteresis", message: "Must be 0 or more" });
  if (rule.kind === "rapid_change" && rule.hysteresis !== undefined && rule.amount !== undefined && rule.hysteresis >= rule.amount) {
    problems.push({ path: "hysteresis", message: "Must be smaller than amount (the rule would never re-arm)" });
  }
  return problems;
}

/** Two rules watch the same readings when their patient, metric and device scope meet. */
function overlaps(a: RuleScope, b: RuleScope): boolean {
  return a.patient_id === b.patient_id && (a.metric ?? null) === (b.metric ?? null) && (!a.device_id || !b.device_id || a.device_id === b.device_id);
}

/**
 * A low limit at or above a high limit of the same readings would hold one of the two alerts
 * open forever: refused, naming the threshold and the other rule.
 */
export function conflictProblems(rule: RuleDraft, others: readonly (RuleDraft & { id: string })[]): FieldProblem[] {
  const threshold = rule.threshold;
  if ((rule.kind !== "high_value" && rule.kind !== "low_value") || threshold === undefined) return [];
  const opposite = rule.kind === "high_value" ? "low_value" : "high_value";
  const clash = others.find(
    (o) => o.kind === opposite && overlaps(rule, o) && o.threshold !== undefined && (rule.kind === "high_value" ? threshold <= o.threshold : threshold >= o.threshold),
  );
  if (!clash) return [];
  const relation = rule.kind === "high_value" ? "above" : "below";
  return [{ path: "threshold", message: `Must be ${relation} the ${opposite} threshold ${clash.threshold} of rule ${clash.id} for the same metric` }];
}

/** Hysteresis when the rule names none: 5% of the threshold (or of the amount), so a value hovering at the limit does not re-fire. */
export function effectiveHysteresis(kind: AlertKind, params: RuleParams): number {
  if (params.hysteresis !== undefined) return params.hysteresis;
  const base = kind === "rapid_change" ? (params.amount ?? 0) : (params.threshold ?? 0);
  return Math.abs(base) * 0.05;
}
