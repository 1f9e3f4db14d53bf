// MessageRouter: one Durable Object per (organization, sender) that drains the
// sender's inbound messages in order, whatever their protocol (each message's
// adapter says which pipelines it triggers). Alarms make it durable: if the object is
// evicted or crashes mid-drain, the alarm fires again and it resumes at the FIFO head.
import { ApiError } from "../../platform/errors";
import type { PublishedEvent } from "../../platform/events";
import { logger } from "../../platform/observability/log";
import { recordMetric } from "../../platform/observability/metrics";
import { OrgObject } from "../../platform/durable-objects/org-object";
import type { InboundAdapters } from "./adapters";
import { type DrainOutcome, drainSender } from "./drain";
import { messageRouting } from "./handler";
import { InboundMessageStore } from "./store";
import type { InboundMessageRow } from "./tables";
import { claimFor } from "../../platform/durable-objects/owner";

/** Work per alarm; beyond it the object re-arms so one sender cannot hog an invocation. */
const DRAIN_BUDGET_MS = 20_000;

/** The `inbound.message.failed` event (docs/webhooks.md): the message failed for good. */
function messageFailed(message: InboundMessageRow, failure: { error: { code: string; message: string; at: string }; attempts: number }): PublishedEvent {
  return {
    type: "inbound.message.failed",
    id: `inbound.message.failed.${message.id}.${Date.parse(failure.error.at)}`,
    occurred_at: failure.error.at,
    data: { message_id: message.id, protocol: message.protocol, sender: message.sender, control_id: message.controlId ?? null, attempts: failure.attempts, error: { code: failure.error.code, message: failure.error.message } },
  };
}

/** Bound by the Worker entry (src/main/entry.ts): how org contexts are built and the deployment's protocol adapters. */
export abstract class MessageRouter extends OrgObject {
  protected abstract readonly adapters: InboundAdapters;

  /** Records whose line this object drains and makes sure an alarm is pending. */
  async kick(orgId: string, sender: string): Promise<void> {
    await claimFor(this.ctx.storage, orgId);
    await this.ctx.storage.put({ orgId, sender });
    const pending = await this.ctx.storage.getAlarm();
    if (pending === null) await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const { orgId, sender } = Object.fromEntries(await this.ctx.storage.get<string>(["orgId", "sender"])) as {
      orgId?: string;
      sender?: string;
    };
    if (!orgId || !sender) return;
    const org = await this.orgContext(orgId).catch((e: unknown) => {
      if (e instanceof ApiError && e.code === "ORGANIZATION_NOT_FOUND") return undefined;
      throw e;
    });
    if (!org) {
      // No organization, so no messages of it to drain: forget the line rather than fail every retry.
      logger(this.env).warn("inbound drain for an unknown organization stopped", { org: orgId, sender });
      await this.ctx.storage.deleteAll();
      return;
    }
    const store = new InboundMessageStore(org.db, orgId, org.blobs);
    const routing = messageRouting(org, this.adapters);
    let outcome: DrainOutcome;
    const failed: PublishedEvent[] = [];
    try {
      outcome = await drainSender(store, sender, routing.handle, {
        budgetMs: DRAIN_BUDGET_MS,
        onMessage: (message, status, failure) => {
          logger(this.env).info("inbound message", { org: orgId, protocol: message.protocol, sender, message_id: message.id, status, attempts: message.attempts });
          recordMetric(this.env, { kind: "inbound", org: orgId, protocol: message.protocol, sender, status, count: 1 });
          if (failure) failed.push(messageFailed(message, failure));
        },
      });
    } finally {
      await routing.close();
      await org.publish(failed);
    }
    if (outcome.state === "budget-exhausted") await this.ctx.storage.setAlarm(Date.now());
    if (outcome.state === "retry-later") await this.ctx.storage.setAlarm(outcome.retryAt);
  }
}
