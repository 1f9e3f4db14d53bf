// Starting deployed pipelines from outside a request: service events through dispatchEvent
// (every matching trigger) or dispatchToPipelines (only the pipelines named, as an alert rule
// names one), and cron ticks through runSchedules. All use the trigger index written at deploy time.
import type { OrgContext } from "../../platform/org-context";
import type { OrgData } from "../../platform/org-data";
import { Cron } from "croner";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type PipelineTriggerRow, pipelineTriggers } from "./tables";
import { ApiError } from "../../platform/errors";
import { limitsOfOrg } from "../tenancy";

export interface ServiceEvent {
  type: "hl7.message" | "device.alert" | (string & {});
  attributes: Record<string, string>;
  payload: unknown;
  /** The event's own id: dispatching it again starts no second execution of a trigger. */
  id?: string;
}

export interface DispatchResult {
  pipeline_id: string;
  /** The trigger node it started through (absent when a named pipeline did not start). */
  node_id?: string;
  execution_id?: string;
  error?: { code: string; message: string };
}

async function concurrencyLimit(data: OrgData): Promise<number> {
  return (await limitsOfOrg(data)).concurrentExecutions;
}

async function start(ctx: OrgContext, pipelineId: string, nodeId: string, limit: number, run: { kind: "event" | "schedule"; inputs: unknown; idempotencyKey?: string }): Promise<DispatchResult> {
  try {
    const res = await ctx.execute({
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
export async function matchingEventTriggers(data: OrgData, event: ServiceEvent): Promise<PipelineTriggerRow[]> {
  return (await eventTriggers(data, event.type)).filter((r) => triggerMatches(r, event));
}

/** The org's deployed triggers for an event type, before their attribute filters. */
export function eventTriggers(data: OrgData, type: string): Promise<PipelineTriggerRow[]> {
  return data.db
    .select()
    .from(pipelineTriggers)
    .where(and(eq(pipelineTriggers.kind, "event"), eq(pipelineTriggers.orgId, data.orgId), eq(pipelineTriggers.match, type)));
}

/** Whether every attribute a trigger lists has its value in the event. */
export function triggerMatches(trigger: PipelineTriggerRow, event: ServiceEvent): boolean {
  return Object.entries(trigger.attributes).every(([k, v]) => event.attributes[k] === v);
}

const eventRun = (event: ServiceEvent) => {
  const inputs = { type: event.type, attributes: event.attributes, payload: event.payload };
  return (nodeId: string) => ({ kind: "event" as const, inputs, idempotencyKey: event.id ? `event:${event.type}:${event.id}:${nodeId}` : undefined });
};

/** Starts an async execution of every deployed pipeline of the org whose event trigger names this event type and whose listed attributes all match. */
export async function dispatchEvent(ctx: OrgContext, event: ServiceEvent): Promise<DispatchResult[]> {
  const matching = await matchingEventTriggers(ctx, event);
  if (!matching.length) return [];
  const limit = await concurrencyLimit(ctx);
  const run = eventRun(event);
  return Promise.all(matching.map((r) => start(ctx, r.pipelineId, r.nodeId, limit, run(r.nodeId))));
}

/**
 * Starts an async execution of each of `pipelineIds` (the pipeline an alert rule names) and of no
 * other, through its first deployed trigger of the event's type whose listed attributes all
 * match. A named pipeline that does not start is answered with why, PIPELINE_NOT_TRIGGERED: not
 * deployed with such a trigger, or its filters exclude the event.
 */
export async function dispatchToPipelines(ctx: OrgContext, event: ServiceEvent, pipelineIds: readonly string[]): Promise<DispatchResult[]> {
  if (!pipelineIds.length) return [];
  const triggers = await eventTriggers(ctx, event.type);
  const limit = await concurrencyLimit(ctx);
  const run = eventRun(event);
  return Promise.all(
    pipelineIds.map(async (pipelineId): Promise<DispatchResult> => {
      const own = triggers.filter((r) => r.pipelineId === pipelineId);
      const first = own.find((r) => triggerMatches(r, event));
      if (first) return start(ctx, pipelineId, first.nodeId, limit, run(first.nodeId));
      const message = own.length ? `The filters of the pipeline's ${event.type} trigger exclude this event` : `The pipeline is not deployed with a ${event.type} trigger`;
      return { pipeline_id: pipelineId, error: { code: "PIPELINE_NOT_TRIGGERED", message } };
    }),
  );
}

/**
 * Runs every deployed schedule trigger of one shard due in the minute of `at` (cron delivery is
 * at-least-once: keyed per minute). `contextFor` answers the org's context, or undefined to skip
 * it (an org not placed on this shard, or being moved).
 */
export async function runSchedules(shard: Database, at: Date, contextFor: (orgId: string) => Promise<OrgContext | undefined>): Promise<DispatchResult[]> {
  const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  const rows = await shard.select().from(pipelineTriggers).where(eq(pipelineTriggers.kind, "schedule"));
  const due = rows.filter((r) => {
    try {
      return new Cron(r.match, { timezone: "UTC", paused: true }).match(minute);
    } catch {
      return false;
    }
  });
  const orgs = new Map<string, { ctx: OrgContext; limit: number } | undefined>();
  const results: DispatchResult[] = [];
  for (const r of due) {
    if (!orgs.has(r.orgId)) {
      const ctx = await contextFor(r.orgId);
      orgs.set(r.orgId, ctx && { ctx, limit: await concurrencyLimit(ctx) });
    }
    const org = orgs.get(r.orgId);
    if (!org) continue;
    const inputs = { scheduled_time: minute.toISOString() };
    const idempotencyKey = `schedule:${r.nodeId}:${minute.toISOString()}`;
    results.push(await start(org.ctx, r.pipelineId, r.nodeId, org.limit, { kind: "schedule", inputs, idempotencyKey }));
  }
  return results;
}
