// Trigger nodes: where executions start. Each hands the execution inputs (the API
// body, the webhook payload, the schedule tick, the event) to its `event` port.
import { Cron } from "croner";
import { z } from "zod";
import { defineNode, type PortDef } from "../node-type";

const EVENT_OUT: PortDef[] = [{ name: "event", type: "trigger-event", description: "The execution inputs" }];
const passInputs = async (ctx: { inputs: Record<string, unknown> }) => ({ outputs: { event: ctx.inputs.event ?? {} } });

export function isValidCron(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true });
    return true;
  } catch {
    return false;
  }
}

export const manualTrigger = defineNode({
  id: "control.manual_trigger",
  name: "Manual / API trigger",
  category: "control",
  description: "Starts the pipeline from POST /api/execute; the request's inputs become the event.",
  keywords: ["start", "manual", "api", "input", "trigger"],
  inputs: [],
  outputs: EVENT_OUT,
  config: z.object({}).strict(),
  trigger: { kind: "manual" },
  documentation: {
    summary: "The input node. Every pipeline needs a trigger; this one fires for API executions.",
    example: { config: {}, inputs: { event: { patient_id: "123" } }, outputs: { event: { patient_id: "123" } } },
  },
  run: passInputs,
});

export const webhookTrigger = defineNode({
  id: "control.webhook_trigger",
  name: "Webhook trigger",
  category: "control",
  description: "Starts the pipeline from POST /api/pipelines/{id}/webhook (API key with pipelines:execute); the JSON body becomes the event.",
  keywords: ["webhook", "http", "inbound", "trigger", "callback"],
  inputs: [],
  outputs: EVENT_OUT,
  config: z.object({ description: z.string().max(500).optional() }).strict(),
  trigger: { kind: "webhook" },
  documentation: {
    summary: "Fires when a caller posts to the pipeline's webhook URL. An Idempotency-Key header deduplicates deliveries.",
    example: { config: {}, outputs: { event: { body: { order: 1 }, headers: { "content-type": "application/json" } } } },
  },
  run: passInputs,
});

export const scheduleTrigger = defineNode({
  id: "control.schedule_trigger",
  name: "Schedule trigger",
  category: "control",
  description: "Starts the deployed pipeline on a cron schedule (UTC, minute resolution).",
  keywords: ["cron", "schedule", "timer", "periodic", "trigger"],
  inputs: [],
  outputs: EVENT_OUT,
  config: z
    .object({
      cron: z.string().refine(isValidCron, "Invalid cron expression").describe("Five-field cron, UTC, e.g. */5 * * * *"),
    })
    .strict(),
  trigger: { kind: "schedule", index: (config) => ({ match: config.cron, attributes: {} }) },
  documentation: {
    summary: "Runs only while the pipeline is deployed; undeploy stops it.",
    example: { config: { cron: "0 * * * *" }, outputs: { event: { scheduled_time: "2026-01-01T10:00:00.000Z" } } },
  },
  run: passInputs,
});

export const eventTrigger = defineNode({
  id: "control.event_trigger",
  name: "Event trigger",
  category: "control",
  description: "Starts the deployed pipeline when the service raises a matching event (inbound HL7 message, device alert).",
  keywords: ["event", "hl7", "alert", "device", "inbound", "trigger"],
  inputs: [],
  outputs: EVENT_OUT,
  config: z
    .object({
      event_type: z.string().min(1).describe("e.g. hl7.message or device.alert"),
      attributes: z
        .record(z.string(), z.string())
        .default({})
        .describe("Attributes that must match exactly, e.g. {message_type: ADT, trigger_event: A01}"),
    })
    .strict(),
  trigger: { kind: "event", index: (config) => ({ match: config.event_type, attributes: config.attributes }) },
  documentation: {
    summary: "Matches on the event type and every listed attribute.",
    example: {
      config: { event_type: "hl7.message", attributes: { message_type: "ADT" } },
      outputs: { event: { type: "hl7.message", attributes: { message_type: "ADT" }, payload: "MSH|..." } },
    },
  },
  run: passInputs,
});
