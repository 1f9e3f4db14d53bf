// D1 tables of threshold alerts, on the org's shard: the rules clinicians configure, each
// rule's evaluation state (one row per rule, versioned for optimistic writes) and the alerts
// (one per episode). org_id leads every key and index.
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { AlertKind, Recipients, RuleParams, Severity } from "./rule";

export const alertRules = sqliteTable(
  "alert_rules",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    patientId: text("patient_id").notNull(),
    /** The metric the rule watches (a reading's metric or a component's); null: every metric of the device. */
    metric: text("metric"),
    /** Only readings of this device; null: every device of the patient. */
    deviceId: text("device_id"),
    kind: text("kind").$type<AlertKind>().notNull(),
    /** Kind-specific numbers: threshold, hysteresis, amount, direction, span_minutes (rule.ts). */
    params: text("params", { mode: "json" }).$type<RuleParams>().notNull(),
    recipients: text("recipients").$type<Recipients>().notNull(),
    severity: text("severity").$type<Severity>().notNull(),
    pipelineId: text("pipeline_id"),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("alert_rules_patient_idx").on(t.orgId, t.patientId), index("alert_rules_created_idx").on(t.orgId, t.createdAt)],
);

export type AlertRuleRow = typeof alertRules.$inferSelect;

/** One point a rapid-change rule remembers: its time (ms), value and Observation. */
export interface RecentPoint {
  t: number;
  v: number;
  o: string;
}

/**
 * A rule's evaluation state per stream: a value rule keeps one per device (a live monitor and a
 * ring syncing daily are separate series, each with its own episodes and watermark); an absence
 * rule keeps one for the rule (stream ""), since any device's reading is data.
 */
export const alertRuleStates = sqliteTable(
  "alert_rule_states",
  {
    orgId: text("org_id").notNull(),
    ruleId: text("rule_id").notNull(),
    stream: text("stream").notNull(),
    /** Bumped on every write; a write that finds another version re-reads and re-evaluates. */
    version: integer("version").notNull(),
    /** The alert of the episode in progress; null while the rule is armed. */
    openAlertId: text("open_alert_id"),
    /** Time (ms) of the latest reading evaluated; readings before it are behind the rule (docs/alerts.md). */
    watermark: integer("watermark"),
    /** Observations evaluated at exactly `watermark` (two devices, one instant; redeliveries). */
    watermarkIds: text("watermark_ids", { mode: "json" }).$type<string[]>().notNull(),
    /** The latest matching reading (absence rules measure silence from it). */
    lastReadingAt: integer("last_reading_at"),
    lastObservationId: text("last_observation_id"),
    /** Rapid change: the readings inside the rule's span. */
    recent: text("recent", { mode: "json" }).$type<RecentPoint[]>().notNull(),
    /** Devices that delivered matching readings (absence asks each for its last sync). */
    devices: text("devices", { mode: "json" }).$type<string[]>().notNull(),
    /** Absence rules: when the cron should look at the rule next (ms); null for other kinds. */
    nextCheckAt: integer("next_check_at"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.ruleId, t.stream] }), index("alert_rule_states_due_idx").on(t.nextCheckAt)],
);

export type AlertRuleStateRow = typeof alertRuleStates.$inferSelect;

export const ALERT_STATES = ["active", "acknowledged", "resolved"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** The FHIR resources an alert created (ids in the org's store). */
export interface AlertResources {
  detectedIssue?: string;
  communications?: string[];
  flag?: string;
  /** Pipelines were started for the episode (once, whatever happens after). */
  dispatched?: boolean;
}

/** A pipeline run the alert started, or why it could not start. */
export interface AlertPipelineRun {
  pipeline_id: string;
  execution_id?: string;
  error?: { code: string; message: string };
}

export const alerts = sqliteTable(
  "alerts",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    ruleId: text("rule_id").notNull(),
    patientId: text("patient_id").notNull(),
    kind: text("kind").$type<AlertKind>().notNull(),
    metric: text("metric"),
    deviceId: text("device_id"),
    severity: text("severity").$type<Severity>().notNull(),
    /** Copied from the rule when the alert fired, so it is published as configured then. */
    recipients: text("recipients").$type<Recipients>().notNull(),
    pipelineId: text("pipeline_id"),
    state: text("state").$type<AlertState>().notNull(),
    message: text("message").notNull(),
    /** The value (or change, or silence in minutes) that breached, and the limit it breached. */
    value: real("value"),
    limit: real("limit"),
    observationIds: text("observation_ids", { mode: "json" }).$type<string[]>().notNull(),
    /** When the excursion began (the breaching reading's time, or when silence began). */
    startedAt: text("started_at").notNull(),
    /** When the episode ended (value back to normal, data again); null while it lasts. */
    episodeEndedAt: text("episode_ended_at"),
    resources: text("resources", { mode: "json" }).$type<AlertResources>().notNull(),
    pipelineRuns: text("pipeline_runs", { mode: "json" }).$type<AlertPipelineRun[]>().notNull(),
    /** Set once its FHIR resources exist and its pipelines started; the cron retries the others. */
    publishedAt: text("published_at"),
    /** Failed publications since the last success; the cron gives up after MAX_PUBLISH_ATTEMPTS. */
    publishAttempts: integer("publish_attempts").notNull().default(0),
    publishError: text("publish_error"),
    acknowledgedAt: text("acknowledged_at"),
    acknowledgedBy: text("acknowledged_by"),
    resolvedAt: text("resolved_at"),
    resolvedBy: text("resolved_by"),
    note: text("note"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index("alerts_org_created_idx").on(t.orgId, t.createdAt),
    index("alerts_patient_idx").on(t.orgId, t.patientId, t.createdAt),
    index("alerts_unpublished_idx").on(t.publishedAt),
  ],
);

export type AlertRow = typeof alerts.$inferSelect;
