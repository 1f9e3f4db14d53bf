// The Worker suite's explicit flush of its queues. A queued message (a read's or a management
// action's AuditEvent, a wearable webhook delivery) reaches its consumer some time after the send:
// Miniflare delivers a queue's batches one after another, so how long depends on everything queued
// before it, and a test that polls for the result until a deadline fails whenever the runtime is
// slow or behind. `queuesDelivered()` instead sends a marker on each queue and returns once the
// consumer has been handed it: everything sent before it has then been consumed (stored, or left
// for a retry when its consumer failed), since a queue delivers in order and one batch at a time.
//
// The marker never reaches the Worker's consumer: this module wraps the Worker's queue handler once
// per runtime, taking markers out of each batch before the Worker's own handler gets the rest. The
// wrapper also acknowledges, unseen, messages sent before the runtime's last reset
// (test/support/fresh-runtime.ts): a fresh runtime would never have received them, and their
// organizations are gone with the storage.
import { env } from "cloudflare:workers";
import type { Env } from "../../src/platform/env";
import worker from "../../src/main/entry";
import { keptGlobal } from "./kept-global";

const MARK = "__cdisQueueMark";
/** How long a queue may take to deliver what was sent before a marker: a stuck consumer, not a slow one. */
const DELIVERY_LIMIT_MS = 120_000;
const POLL_MS = 10;

interface QueueState {
  /**
   * Markers the consumer has been handed. The sender polls for its marker rather than being woken
   * by the consumer: a promise resolved inside the queue's invocation would run the test on in
   * that invocation's context, whose I/O workerd cancels once the invocation is over.
   */
  arrived: Set<string>;
  /** Messages sent before this (epoch ms) belong to a runtime that has since been reset. */
  epoch: number;
}

const state = keptGlobal<QueueState>("cdis.test.queues", () => ({ arrived: new Set(), epoch: 0 }));
// The real clock, kept from before any test could fake it (a file that left fake timers behind
// still has its queues flushed by the next file's start).
const now = Date.now.bind(Date);
const later = globalThis.setTimeout.bind(globalThis);

const markOf = (body: unknown): string | undefined =>
  typeof body === "object" && body !== null && typeof (body as Record<string, unknown>)[MARK] === "string" ? ((body as Record<string, unknown>)[MARK] as string) : undefined;

const WRAPPED = Symbol.for("cdis.test.queueWrapper");
type QueueHandler = (batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) => Promise<void>;
const handlers = worker as unknown as { queue: QueueHandler & { [WRAPPED]?: true } };

function wrap(original: QueueHandler): QueueHandler {
  const wrapped: QueueHandler = async (batch, handlerEnv, ctx) => {
    const marks: string[] = [];
    const rest: Message<unknown>[] = [];
    for (const m of batch.messages) {
      const mark = markOf(m.body);
      if (mark === undefined && m.timestamp.getTime() >= state.epoch) rest.push(m);
      else {
        if (mark !== undefined) marks.push(mark);
        m.ack();
      }
    }
    try {
      if (rest.length === batch.messages.length) await original(batch, handlerEnv, ctx);
      else if (rest.length) await original(batchOf(batch, rest), handlerEnv, ctx);
    } finally {
      for (const mark of marks) state.arrived.add(mark);
    }
  };
  return Object.assign(wrapped, { [WRAPPED]: true });
}

/** `batch` with only `messages`. */
function batchOf(batch: MessageBatch<unknown>, messages: Message<unknown>[]): MessageBatch<unknown> {
  return {
    queue: batch.queue,
    metadata: batch.metadata,
    messages,
    ackAll: () => {
      for (const m of messages) m.ack();
    },
    retryAll: (options) => {
      for (const m of messages) m.retry(options);
    },
  };
}

/** Installs the wrapper on the Worker's queue handler, once per runtime (modules outlive a test file here). */
export function wrapQueueConsumer(): void {
  if (!handlers.queue[WRAPPED]) handlers.queue = wrap(handlers.queue);
}

/** From now on, messages sent earlier are acknowledged unseen (the runtime's storage was just reset). */
export function forgetEarlierMessages(): void {
  state.epoch = now();
}

async function delivered(name: string, queue: Queue): Promise<void> {
  const id = crypto.randomUUID();
  await queue.send({ [MARK]: id }, { contentType: "json" });
  const until = now() + DELIVERY_LIMIT_MS;
  while (!state.arrived.delete(id)) {
    if (now() > until) throw new Error(`the ${name} queue did not deliver what was sent before a marker within ${DELIVERY_LIMIT_MS / 1000} s`);
    await new Promise((resolve) => later(resolve, POLL_MS));
  }
}

/** Resolves once every message sent to the audit queue before the call has been consumed. */
export function auditsDelivered(): Promise<void> {
  wrapQueueConsumer();
  return delivered("audit", env.AUDIT_QUEUE);
}

/** Resolves once every wearable webhook delivery queued before the call has been consumed (or left for a retry). */
export function deviceEventsDelivered(): Promise<void> {
  wrapQueueConsumer();
  return delivered("device events", env.DEVICE_EVENTS);
}

/** Resolves once every message sent to any of the Worker's queues before the call has been consumed. */
export async function queuesDelivered(): Promise<void> {
  wrapQueueConsumer();
  await Promise.all([delivered("audit", env.AUDIT_QUEUE), delivered("device events", env.DEVICE_EVENTS)]);
}
