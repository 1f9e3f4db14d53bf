// Starting deployed pipelines from outside a request: service events (inbound
// HL7 messages, device alerts) through dispatchEvent, and cron ticks through
// runSchedules. Both use the trigger index written at deploy time.
import { Cron } from "croner";
import { and, eq } from "drizzle-orm";
import { database } from "../../platform/db/client";
import { type PipelineTriggerRow, pipelineTriggers } from "./tables";
import type { Env } from "../../platform/env";
import { ApiError } from "../../platform/errors";
import { limitsOfOrg } from "../tenancy/limits/org-limits";
import { execute } from "../../service-wiring";

export interface ServiceEvent {
  type: "hl7.message" | "device.alert" | (string & {});
  attributes: Record<string, string>;
  payload: unknown;
}

export interface DispatchResult {
  pipeline_id: string;
  node_id: string;
  execution_id?: string;
  error?: { code: string; message: string };
}

async function concurrencyLimit(env: Env, orgId: string): Promise<number> {
  return (await limitsOfOrg(env, orgId)).concurrentExecutions;
}

async function start(env: Env, orgId: string, pipelineId: string, nodeId: string, limit: number, run: { kind: "event" | "schedule"; inputs: unknown; idempotencyKey?: string }): Promise<DispatchResult> {
  try {
    const res = await execute(env, orgId, {
      pipelineId,
      inputs: run.inputs,
      async: true,
      testMode: false,
      trigger: { kind: run.kind, nodeId },
      concurrencyLimit: limit,
      idempotencyKey: run.idempotencyKey,
    });
    return { pipeline_id: pipelineId, node_id: nodeId, execution_id: res.execution_id };
  } catch (e) {
    // One pipeline refusing (429, undeployed meanwhile) must not stop the others.
    const error = e instanceof ApiError ? { code: e.code, message: e.message } : { code: "DISPATCH_FAILED", message: String(e) };
    return { pipeline_id: pipelineId, node_id: nodeId, error };
  }
}

/** The deployed event triggers of the org whose type and every listed attribute match the event. */
export async function matchingEventTriggers(env: Env, orgId: string, event: ServiceEvent): Promise<PipelineTriggerRow[]> {
  return (await eventTriggers(env, orgId, event.type)).filter((r) => triggerMatches(r, event));
}

/** The org's deployed triggers for an event type, before their attribute filters. */
export function eventTriggers(env: Env, orgId: string, type: string): Promise<PipelineTriggerRow[]> {
  return database(env.DB)
    .select()
    .from(pipelineTriggers)
    .where(and(eq(pipelineTriggers.kind, "event"), eq(pipelineTriggers.orgId, orgId), eq(pipelineTriggers.match, type)));
}

/** Whether every attribute a trigger lists has its value in the event. */
export function triggerMatches(trigger: PipelineTriggerRow, event: ServiceEvent): boolean {
  return Object.entries(trigger.attributes).every(([k, v]) => event.attributes[k] === v);
}

/**
 * Starts an async execution of every deployed pipeline of the org whose event
 * trigger names this event type and whose listed attributes all match.
 */
export async function dispatchEvent(env: Env, orgId: string, event: ServiceEvent): Promise<DispatchResult[]> {
  const matching = await matchingEventTriggers(env, orgId, event);
  if (!matching.length) return [];
  const limit = await concurrencyLimit(env, orgId);
  const inputs = { type: event.type, attributes: event.attributes, payload: event.payload };
  return Promise.all(matching.map((r) => start(env, orgId, r.pipelineId, r.nodeId, limit, { kind: "event", inputs })));
}

/** Runs every deployed schedule trigger due in the minute of `at` (cron delivery is at-least-once: keyed per minute). */
export async function runSchedules(env: Env, at: Date): Promise<DispatchResult[]> {
  const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  const rows = await database(env.DB).select().from(pipelineTriggers).where(eq(pipelineTriggers.kind, "schedule"));
  const due = rows.filter((r) => {
    try {
      return new Cron(r.match, { timezone: "UTC", paused: true }).match(minute);
    } catch {
      return false;
    }
  });
  const limits = new Map<string, number>();
  const results: DispatchResult[] = [];
  for (const r of due) {
    if (!limits.has(r.orgId)) limits.set(r.orgId, await concurrencyLimit(env, r.orgId));
    const inputs = { scheduled_time: minute.toISOString() };
    const idempotencyKey = `schedule:${r.nodeId}:${minute.toISOString()}`;
    results.push(await start(env, r.orgId, r.pipelineId, r.nodeId, limits.get(r.orgId) as number, { kind: "schedule", inputs, idempotencyKey }));
  }
  return results;
}
