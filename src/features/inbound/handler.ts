// Routes one inbound HL7 message into the organization's deployed pipelines whose
// HL7 trigger matches, one after another and synchronously, so a sender's
// messages take effect in the order they arrived (an A03 never overtakes its A01).
import { type Write, database } from "../../platform/db/client";
import type { InboundMessageRow } from "./tables";
import type { Env } from "../../platform/env";
import { ApiError } from "../../platform/errors";
import { limitsOfOrg } from "../tenancy/limits/org-limits";
import { heldSlot } from "../tenancy/limits/gate";
import { type Runnable, SYNC_LEASE_MS, runnableVersion } from "../pipelines/execution-service";
import { execute } from "../../service-wiring";
import { HL7_EVENT_TYPE, type Hl7EventPayload, hl7EventAttributes } from "../../standards/hl7v2/nodes";
import { type ServiceEvent, eventTriggers, triggerMatches } from "../pipelines/triggers";
import type { MessageHandler } from "./drain";

export function hl7Event(message: InboundMessageRow): ServiceEvent {
  const payload: Hl7EventPayload = { message_id: message.id, control_id: message.controlId ?? "", sender: message.sender ?? "", raw: message.raw };
  return { type: HL7_EVENT_TYPE, attributes: hl7EventAttributes(message), payload };
}

/** FHIR references a run wrote: the locations in any transaction/batch response among its outputs. */
export function writtenResources(outputs: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(outputs)) {
    for (const v of outputs) writtenResources(v, found);
  } else if (outputs && typeof outputs === "object") {
    const o = outputs as { resourceType?: unknown; type?: unknown; entry?: { response?: { location?: string } }[] };
    if (o.resourceType === "Bundle" && typeof o.type === "string" && o.type.endsWith("-response")) {
      for (const e of o.entry ?? []) {
        const location = e.response?.location?.replace(/\/_history\/.*$/, "");
        if (location) found.add(location);
      }
    } else {
      for (const v of Object.values(o)) writtenResources(v, found);
    }
  }
  return found;
}

/**
 * How long one drain pass reuses the org's HL7 triggers and limits: a deploy or a limit change
 * reaches a busy line within this time, and a steady feed saves two reads per message.
 */
const ROUTING_TTL_MS = 1_000;

/**
 * A value read at most once per `ttlMs`. The read is settled into a real Promise: a drizzle
 * query builder is a thenable that runs its query again on every await.
 */
export function recent<T>(read: () => PromiseLike<T>, ttlMs = ROUTING_TTL_MS, clock: () => number = Date.now): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = clock();
    if (!cached || now - cached.at >= ttlMs) {
      const value = Promise.resolve(read());
      cached = { at: now, value };
      value.catch(() => (cached = undefined));
    }
    return cached.value;
  };
}

/** How one drain pass routes messages; `close` frees the concurrency slot its runs held. */
export interface MessageRouting {
  handle: MessageHandler;
  close(): Promise<void>;
}

export function messageRouting(env: Env, orgId: string): MessageRouting {
  const triggersOf = recent(() => eventTriggers(env, orgId, HL7_EVENT_TYPE));
  const limits = recent(() => limitsOfOrg(env, orgId));
  // Deployed versions, reused like the triggers: a deploy reaches a busy line within ROUTING_TTL_MS.
  const versions = new Map<string, () => Promise<Runnable>>();
  const runnable = (pipelineId: string) => {
    let read = versions.get(pipelineId);
    if (!read) {
      read = recent(() => runnableVersion(env, orgId, pipelineId, false));
      versions.set(pipelineId, read);
    }
    return read();
  };
  // The pass runs its executions one at a time, so one slot covers them all.
  const slot = heldSlot(env, orgId, "executions", SYNC_LEASE_MS);
  const handle: MessageHandler = async (message) => {
    const event = hl7Event(message);
    const triggers = (await triggersOf()).filter((t) => triggerMatches(t, event));
    if (!triggers.length) return null;
    const limit = (await limits()).concurrentExecutions;
    const executions: string[] = [];
    const resources = new Set<string>();
    // Each run's record is inserted once, when it ends, in one batch with the message's status.
    const writes: Write[] = [];
    try {
      for (const t of triggers) {
        await slot.hold(limit);
        const res = await execute(env, orgId, {
          pipelineId: t.pipelineId,
          inputs: event,
          async: false,
          testMode: false,
          trigger: { kind: "event", nodeId: t.nodeId },
          concurrencyLimit: limit,
          runnable: await runnable(t.pipelineId),
          slotHeld: true,
          recordInto: writes,
        });
        executions.push(res.execution_id);
        if (res.status === "failed") {
          throw new ApiError(422, "PIPELINE_FAILED", `Pipeline ${t.pipelineId} failed (execution ${res.execution_id}): ${res.error?.message ?? "unknown error"}`);
        }
        writtenResources(res.outputs, resources);
      }
    } catch (e) {
      // A message that fails keeps the records of the runs that ended (the failed one among them).
      if (writes.length) await database(env.DB).batch(writes as [Write, ...Write[]]);
      throw e;
    }
    return { executions, resources: [...resources], writes };
  };
  return { handle, close: () => slot.release() };
}
