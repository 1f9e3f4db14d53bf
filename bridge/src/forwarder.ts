// Drains the queue to the Worker, one lane per protocol: each lane has one batch of its
// protocol in flight, oldest first, posted to that protocol's target and resent unchanged until
// the Worker settles it. One batch at a time per lane keeps every (protocol, sender) in order;
// separate lanes keep one protocol's failing endpoint from holding up the others.
import { backoffDelay } from "./backoff";
import type { Logger } from "./log";
import type { MessageQueue, QueuedMessage } from "./message-queue";
import type { Metrics, WorkerState } from "./metrics";
import type { ForwardTarget } from "./protocol";
import { sendBatch, type WorkerClientOptions } from "./worker-client";

export interface ForwarderOptions extends WorkerClientOptions {
  batchMaxMessages: number;
  batchMaxBytes: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Wait after 401/403 and other 4xx answers: a configuration fix is needed, so retry slowly. */
  misconfiguredRetryMs: number;
  /** Longest Retry-After honoured, so a bogus header cannot park the bridge for days. */
  maxRetryAfterMs: number;
  idlePollMs: number;
  /** How long a part-filled batch waits for company: fewer, fuller requests under load. */
  batchLingerMs: number;
}

export class Forwarder {
  private readonly lanes: Lane[];

  constructor(
    private readonly queue: MessageQueue,
    metrics: Metrics,
    private readonly log: Logger,
    targets: readonly ForwardTarget[],
    options: ForwarderOptions,
  ) {
    this.lanes = targets.map((target) => new Lane(queue, metrics, log, target, options));
  }

  start(): void {
    const served = new Set(this.lanes.map((lane) => lane.protocol));
    const orphaned = this.queue.pendingProtocols().filter((p) => !served.has(p));
    if (orphaned.length > 0) this.log.error("no_forwarding_target", { protocols: orphaned, hint: "these messages stay queued" });
    for (const lane of this.lanes) lane.start();
  }

  /** Something was enqueued: end every lane's idle wait (never a backoff wait). */
  wake(): void {
    for (const lane of this.lanes) lane.wake();
  }

  async stop(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.stop()));
  }
}

/** One protocol's forwarding loop. */
class Lane {
  readonly protocol: string;
  private readonly worker: WorkerState;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly stopController = new AbortController();
  private wakeIdle: (() => void) | null = null;
  private cancelSleep: (() => void) | null = null;

  constructor(
    private readonly queue: MessageQueue,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    private readonly target: ForwardTarget,
    private readonly options: ForwarderOptions,
  ) {
    this.protocol = target.protocol;
    this.worker = metrics.workerFor(target.protocol);
  }

  start(): void {
    this.running = true;
    this.loop = this.run().catch((error: unknown) => {
      this.log.error("forwarder_crashed", { protocol: this.protocol, error: String(error) });
      this.metrics.error(`forwarder (${this.protocol}) stopped: ${String(error)}`);
    });
  }

  wake(): void {
    this.wakeIdle?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopController.abort();
    this.cancelSleep?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let batch: QueuedMessage[] = [];
    let attempt = 0;
    while (this.running) {
      if (batch.length === 0) batch = this.nextBatch();
      if (batch.length > 0 && batch.length < this.options.batchMaxMessages && this.options.batchLingerMs > 0) {
        await this.sleep(this.options.batchLingerMs, false);
        batch = this.nextBatch();
      }
      if (batch.length === 0) {
        await this.sleep(this.options.idlePollMs, true);
        continue;
      }
      const outcome = await sendBatch(this.options, this.target, batch, this.stopController.signal);
      const worker = this.worker;
      worker.lastStatus = outcome.kind === "settled" ? 200 : outcome.status;
      worker.reachable = worker.lastStatus !== null;
      if (outcome.kind === "settled") {
        this.queue.settle(outcome.settlements);
        this.countSettled(outcome.settlements);
        worker.lastSuccessAt = new Date().toISOString();
        if (outcome.missing.length === 0) {
          worker.consecutiveFailures = 0;
          worker.nextAttemptAt = null;
          attempt = 0;
          batch = [];
          continue;
        }
        // The unanswered ones stay pending and go again, as a new batch, after a backoff.
        batch = [];
        this.fail(`Worker answered ${outcome.settlements.length} of ${outcome.missing.length + outcome.settlements.length} messages`);
        await this.sleep(backoffDelay(++attempt, this.options.retryBaseMs, this.options.retryMaxMs), false);
        continue;
      }
      if (!this.running) break;
      attempt++;
      let delay: number;
      if (outcome.kind === "misconfigured") {
        delay = this.options.misconfiguredRetryMs;
        this.log.error("worker_refused_bridge", {
          protocol: this.protocol,
          status: outcome.status,
          reason: outcome.reason,
          hint: "check WORKER_URL, BRIDGE_API_KEY and BRIDGE_ORG_ID; messages stay queued",
        });
      } else {
        const backoff = backoffDelay(attempt, this.options.retryBaseMs, this.options.retryMaxMs);
        delay = Math.max(backoff, Math.min(outcome.retryAfterMs ?? 0, this.options.maxRetryAfterMs));
        this.log.warn("forward_retry", { protocol: this.protocol, status: outcome.status, reason: outcome.reason, delay_ms: delay, attempt });
      }
      this.fail(outcome.reason);
      worker.nextAttemptAt = new Date(Date.now() + delay).toISOString();
      await this.sleep(delay, false);
    }
  }

  private nextBatch(): QueuedMessage[] {
    return this.queue.nextBatch(this.protocol, this.options.batchMaxMessages, this.options.batchMaxBytes);
  }

  private countSettled(settlements: { status: string }[]): void {
    const rejected = settlements.filter((s) => s.status === "rejected").length;
    this.metrics.count("forwarded", settlements.length - rejected);
    if (rejected > 0) {
      this.metrics.count("rejected", rejected);
      this.log.warn("messages_rejected", { protocol: this.protocol, count: rejected });
    }
  }

  private fail(reason: string): void {
    this.worker.consecutiveFailures++;
    this.metrics.error(reason);
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.cancelSleep = null;
        this.wakeIdle = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.cancelSleep = done;
      if (wakeable) this.wakeIdle = done;
    });
  }
}
