// Routes one inbound message into the organization's deployed pipelines whose trigger
// for the message's protocol matches, one after another and synchronously, so a sender's
// messages take effect in the order they arrived (an HL7 A03 never overtakes its A01).
// The runs share one execution batch: one concurrency slot, records committed with the
// message's status.
import type { Write } from "../../platform/db/client";
import type { OrgContext } from "../../platform/org-context";
import { ApiError } from "../../platform/errors";
import { recent, recentBy } from "../../platform/recent";
import { limitsOfOrg } from "../tenancy";
import { type ServiceEvent, eventTriggers, triggerMatches } from "../pipelines";
import type { InboundAdapter, InboundEventPayload } from "./adapter";
import type { InboundAdapters } from "./adapters";
import type { MessageHandler } from "./drain";
import type { InboundMessageRow } from "./tables";

/** The event a message fires: its adapter names the type and the attributes triggers compare. */
export function inboundEvent(adapter: InboundAdapter, message: InboundMessageRow): ServiceEvent {
  const payload: InboundEventPayload = { message_id: message.id, control_id: message.controlId ?? "", sender: message.sender ?? "", raw: message.raw };
  return { type: adapter.eventType, attributes: adapter.attributes(message), payload };
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
 * How long one drain pass reuses the org's triggers, limits and deployed versions: a deploy or a
 * limit change reaches a busy line within this time, and a steady feed saves three reads per message.
 */
const ROUTING_TTL_MS = 1_000;

/** How one drain pass routes messages; `close` frees the concurrency slot its runs held. */
export interface MessageRouting {
  handle: MessageHandler;
  close(): Promise<void>;
}

/** `ttlMs`: how long the pass reuses its reads (ROUTING_TTL_MS; a test counting round trips sets it past its own duration). */
export function messageRouting(ctx: OrgContext, adapters: InboundAdapters, ttlMs = ROUTING_TTL_MS): MessageRouting {
  const triggersOf = recentBy((eventType) => eventTriggers(ctx, eventType), ttlMs);
  const limits = recent(() => limitsOfOrg(ctx), ttlMs);
  const batch = ctx.openExecutionBatch({ versionTtlMs: ttlMs });
  const handle: MessageHandler = async (message) => {
    const adapter = adapters.get(message.protocol);
    // Kept as failed, not lost: reprocess it once the protocol is registered again.
    if (!adapter) throw new ApiError(422, "UNKNOWN_PROTOCOL", `No inbound adapter is registered for protocol ${message.protocol}`);
    const event = inboundEvent(adapter, message);
    const triggers = (await triggersOf(event.type)).filter((t) => triggerMatches(t, event));
    if (!triggers.length) return null;
    const limit = (await limits()).concurrentExecutions;
    const executions: string[] = [];
    const resources = new Set<string>();
    // Each run's record is inserted once, when it ends, in one batch with the message's status.
    const writes: Write[] = [];
    try {
      for (const t of triggers) {
        const res = await batch.run({ pipelineId: t.pipelineId, inputs: event, trigger: { kind: "event", nodeId: t.nodeId }, concurrencyLimit: limit }, writes);
        executions.push(res.execution_id);
        if (res.status === "failed") {
          throw new ApiError(422, "PIPELINE_FAILED", `Pipeline ${t.pipelineId} failed (execution ${res.execution_id}): ${res.error?.message ?? "unknown error"}`);
        }
        writtenResources(res.outputs, resources);
      }
    } catch (e) {
      // A message that fails keeps the records of the runs that ended (the failed one among them).
      if (writes.length) await ctx.db.batch(writes as [Write, ...Write[]]);
      throw e;
    }
    return { executions, resources: [...resources], writes };
  };
  return { handle, close: () => batch.close() };
}
