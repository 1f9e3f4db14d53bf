// DestinationQueue: one Durable Object per (organization, destination) that holds the
// destination's messages in its SQLite (queue-store.ts) and delivers them in order, through the
// transport of the destination's target kind. Alarms make it durable: an attempt is marked begun
// before it starts, so an object evicted or crashed mid-delivery finds the message still pending
// when the alarm fires again and tries it once more, with the same delivery id (at-least-once).
import { OrgObject } from "../../platform/durable-objects/org-object";
import { claimFor, ownedBy } from "../../platform/durable-objects/owner";
import type { Env } from "../../platform/env";
import { ApiError } from "../../platform/errors";
import { logger } from "../../platform/observability/log";
import { recordMetric } from "../../platform/observability/metrics";
import type { OrgContext } from "../../platform/org-context";
import { nextAttemptAt } from "./backoff";
import { isRetryable } from "./classify";
import type { Attempt, AttemptObservers, AttemptResult, Destination, MessageState, OutboundMessage, QueuedMessage, TargetKind, Transports, TransportSession } from "./model";
import { type MessageQuery, type QueueFigures, QueueStore } from "./queue-store";
import { DestinationStore } from "./store";
import { errorResult } from "./transports/errors";

/** Work per alarm; beyond it the object re-arms so one destination cannot hog an invocation. */
const DRAIN_BUDGET_MS = 20_000;

export type OperatorAction =
  | { action: "retry_now"; message_ids?: string[] }
  | { action: "skip"; message_id: string }
  | { action: "reprocess"; message_ids?: string[] }
  | { action: "purge"; states: ("queued" | "dead" | "delivered" | "skipped")[] };

/** Bound by the Worker entry (src/main/entry.ts): how org contexts are built, the transports and the owners' observers. */
export abstract class DestinationQueue extends OrgObject {
  protected abstract readonly transports: Transports;
  protected abstract readonly observers: AttemptObservers;
  private readonly queue: QueueStore;
  /** Messages this instance is delivering now (per_key runs several at once). */
  private readonly busy = new Set<string>();
  /**
   * The transport session of the last drain (the connector read once, its MLLP connection), handed
   * to the next drain's to take over: so one connection carries the destination's messages from
   * drain to drain, until it breaks or idles (then the next message opens another).
   */
  private held: { kind: TargetKind; session: TransportSession } | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.queue = new QueueStore(ctx.storage.sql);
  }

  private async bind(orgId: string, destinationId: string): Promise<void> {
    await claimFor(this.ctx.storage, orgId);
    await this.ctx.storage.put({ orgId, destinationId });
  }

  /** Makes sure an alarm fires by `at` (now by default). */
  private async wake(at = Date.now()): Promise<void> {
    const pending = await this.ctx.storage.getAlarm();
    if (pending === null || pending > at) await this.ctx.storage.setAlarm(at);
  }

  async enqueue(orgId: string, destinationId: string, messages: (OutboundMessage & { id: string })[]): Promise<{ ids: string[]; duplicates: string[] }> {
    await this.bind(orgId, destinationId);
    const result = this.queue.enqueue(messages, Date.now());
    await this.wake();
    return result;
  }

  /** Starts delivering again (after a resume, or a destination's target changed). */
  async kick(orgId: string, destinationId: string): Promise<void> {
    await this.bind(orgId, destinationId);
    await this.wake();
  }

  async figures(orgId: string): Promise<QueueFigures | null> {
    return (await ownedBy(this.ctx.storage, orgId)) ? this.queue.figures(Date.now()) : null;
  }

  async messages(orgId: string, query: MessageQuery): Promise<QueuedMessage[]> {
    return (await ownedBy(this.ctx.storage, orgId)) ? this.queue.list(query) : [];
  }

  async message(orgId: string, id: string): Promise<{ message: QueuedMessage; attempts: Attempt[] } | null> {
    if (!(await ownedBy(this.ctx.storage, orgId))) return null;
    const message = this.queue.get(id);
    return message ? { message, attempts: this.queue.attempts(id) } : null;
  }

  /** An operator's action; answers how many messages it touched. */
  async act(orgId: string, destinationId: string, op: OperatorAction): Promise<{ affected: number }> {
    await this.bind(orgId, destinationId);
    const now = Date.now();
    const affected = (() => {
      switch (op.action) {
        case "retry_now":
          return this.queue.retryNow(op.message_ids, now);
        case "skip":
          return this.queue.skip(op.message_id, now) ? 1 : 0;
        case "reprocess":
          return this.queue.reprocess(op.message_ids, now);
        case "purge":
          return this.queue.purge(op.states);
      }
    })();
    if (op.action !== "purge") await this.wake();
    return { affected };
  }

  /** Forgets everything (the destination was deleted with an empty queue, or purged first). */
  async destroy(orgId: string): Promise<void> {
    if (!(await ownedBy(this.ctx.storage, orgId))) return;
    this.held?.session.close();
    this.held = undefined;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  override async alarm(): Promise<void> {
    const { orgId, destinationId } = Object.fromEntries(await this.ctx.storage.get<string>(["orgId", "destinationId"])) as { orgId?: string; destinationId?: string };
    if (!orgId || !destinationId) return;
    const org = await this.orgContext(orgId).catch((e: unknown) => {
      if (e instanceof ApiError && e.code === "ORGANIZATION_NOT_FOUND") return undefined;
      throw e;
    });
    if (!org) {
      logger(this.env).warn("destination queue of an unknown organization stopped", { org: orgId, destination: destinationId });
      return;
    }
    const store = new DestinationStore(org);
    const row = await store.get(destinationId);
    // Deleted (its queue destroyed with it) or paused: nothing to deliver until resumed.
    if (!row || row.state === "paused") return;
    const destination = await store.resolve(row);
    const perKey = destination.ordering === "per_key";
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    let session: TransportSession | undefined;
    while (Date.now() < deadline) {
      const due = this.queue.due(perKey, Date.now(), destination.concurrency, this.busy);
      if (!due.length) break;
      session ??= await this.session(org, destination);
      await Promise.all(due.map((m) => this.attempt(org, destination, m, session)));
    }
    this.queue.prune(Date.now());
    const next = this.queue.nextDueAt(perKey);
    if (next !== null) await this.ctx.storage.setAlarm(Math.max(next, Date.now()));
  }

  /** This drain's transport session, taking over the last drain's (undefined: the transport has none, each delivery is on its own). */
  private async session(org: OrgContext, destination: Destination): Promise<TransportSession | undefined> {
    const kind = destination.target.kind;
    const transport = this.transports[kind];
    const previous = this.held?.kind === kind ? this.held.session : undefined;
    if (!previous) this.held?.session.close();
    this.held = undefined;
    if (!transport.session) {
      previous?.close();
      return undefined;
    }
    try {
      const session = await transport.session(org, destination, previous);
      this.held = { kind, session };
      return session;
    } catch (err) {
      previous?.close();
      logger(this.env).warn("destination transport session not opened: delivering message by message", { org: destination.orgId, destination: destination.id, error: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  }

  private async attempt(org: OrgContext, destination: Destination, queued: QueuedMessage, session: TransportSession | undefined): Promise<void> {
    const started = Date.now();
    const number = this.queue.begin(queued.id, started);
    if (!number) return;
    this.busy.add(queued.id);
    const message = { ...queued, attempts: number, state: "in_flight" as MessageState };
    let result: AttemptResult;
    try {
      const signal = AbortSignal.timeout(destination.timeout_ms + 5_000);
      const delivery = { destination, message, attempt: number, signal };
      result = await (session ? session.deliver(delivery) : this.transports[destination.target.kind].deliver(org, delivery));
    } catch (err) {
      result = errorResult(err);
    } finally {
      this.busy.delete(queued.id);
    }
    const now = Date.now();
    const next = this.next(destination, message, result, now);
    const attempt: Attempt = { message_id: queued.id, number, started_at: new Date(started).toISOString(), duration_ms: now - started, result };
    this.queue.settle(queued.id, attempt, next.state === "retry" ? { state: "queued", retryAt: next.at } : { state: next.state }, now);
    const streak = result.ok ? 0 : ((await this.ctx.storage.get<number>("failure_streak")) ?? 0) + 1;
    await this.ctx.storage.put("failure_streak", streak);
    logger(this.env).info("outbound delivery", { org: destination.orgId, destination: destination.id, message_id: queued.id, attempt: number, outcome: next.state, class: result.failure?.class, ms: now - started });
    recordMetric(this.env, { kind: "outbound", org: destination.orgId, destination: destination.id, status: next.state, durationMs: now - started });
    const observe = destination.owner ? this.observers[destination.owner.kind] : undefined;
    if (observe) {
      await observe(org, { destination, message, attempt, next: next.state, failure_streak: streak }).catch((err: unknown) =>
        logger(this.env).error("destination owner's observer failed", { org: destination.orgId, destination: destination.id, error: err instanceof Error ? err.message : String(err) }),
      );
    }
  }

  /** What follows an attempt: delivered, retried at a time, or dead (permanent, or past the horizon). */
  private next(destination: Destination, message: QueuedMessage, result: AttemptResult, now: number): { state: "delivered" | "dead" } | { state: "retry"; at: number } {
    if (result.ok) return { state: "delivered" };
    if (result.failure && !isRetryable(result.failure.class)) return { state: "dead" };
    const first = message.first_attempt_at ? Date.parse(message.first_attempt_at) : now;
    const at = nextAttemptAt(destination.retry, message.attempts, first, now);
    if (at === null) {
      if (result.failure) result.failure.message += ` (no more retries: the ${destination.retry.horizon_hours} h retry horizon has passed)`;
      return { state: "dead" };
    }
    return { state: "retry", at };
  }
}
