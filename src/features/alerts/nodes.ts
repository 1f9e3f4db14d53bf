// The alert trigger: a deployed pipeline with this node starts once per alert episode of the rules
// that name it (pipeline_id), with the alert (as GET /api/v1/alerts/{id} shows it) as input; the
// alerts of other rules never start it. It is an event trigger on device.alert, narrowed by the
// alert's kind, severity, metric, patient or rule when configured.
import { z } from "zod";
import { defineNode } from "../pipelines";
import { ALERT_EVENT, ALERT_KINDS, SEVERITIES } from "./rule";

export const ALERT_TRIGGER = "alerts.alert_trigger";

const AlertTriggerConfig = z
  .object({
    kind: z.enum(ALERT_KINDS).optional().describe("Only alerts of this kind"),
    severity: z.enum(SEVERITIES).optional().describe("Only alerts of this severity"),
    metric: z.string().min(1).optional().describe("Only alerts of rules on this metric"),
    patient_id: z.string().min(1).optional().describe("Only this patient's alerts"),
    rule_id: z.string().min(1).optional().describe("Only this rule's alerts"),
  })
  .strict();

type Config = z.infer<typeof AlertTriggerConfig>;

/** The event attributes a configured filter must equal (publish.ts sets them on every alert event). */
function attributesOf(config: Config): Record<string, string> {
  return Object.fromEntries(Object.entries(config).filter((e): e is [string, string] => typeof e[1] === "string"));
}

export const alertTrigger = defineNode<Config>({
  id: ALERT_TRIGGER,
  name: "Alert trigger",
  category: "control",
  description: "Starts the deployed pipeline once per threshold-alert episode (high, low, rapid change, absence of data, score below) of the alert rules that name it, with the alert as input.",
  keywords: ["alert", "threshold", "device", "wearable", "vitals", "rpm", "trigger"],
  inputs: [],
  outputs: [
    { name: "alert", type: "json", description: "The alert: id, kind, severity, patient_id, message, value, limit, observation_ids, resources" },
    { name: "event", type: "trigger-event", description: "The whole event: type device.alert, attributes, payload" },
  ],
  config: AlertTriggerConfig,
  trigger: { kind: "event", index: (config) => ({ match: ALERT_EVENT, attributes: attributesOf(config) }) },
  documentation: {
    summary:
      "Fires when an alert rule that names this pipeline (its pipeline_id) opens an episode, and only then; the optional filters narrow those alerts further (an alert they exclude is recorded in the alert's pipeline_runs as PIPELINE_NOT_TRIGGERED).",
    example: {
      config: { kind: "high_value", severity: "high" },
      outputs: { alert: { id: "…", kind: "high_value", patient_id: "p1", metric: "heart_rate", value: 132, limit: 120, message: "heart_rate 132 /min is above the limit 120 /min" } },
    },
  },
  // A manual or test run passes its inputs as the alert, so a pipeline can be tried with a sample alert.
  run: async (ctx) => {
    const event = (ctx.inputs.event ?? {}) as { type?: string; payload?: unknown };
    return { outputs: { alert: event.type === ALERT_EVENT ? (event.payload ?? {}) : event, event } };
  },
});

export const ALERT_NODES = [alertTrigger];
