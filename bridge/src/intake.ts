// Turns one received message into a durable queue entry and the reply its listener may send:
// the reply is built only after the queue has committed the message (or its rejection). What a
// message's key and reply are is the protocol adapter's business.
import type { MessageSink } from "./listener";
import type { Logger } from "./log";
import type { IncomingMessage, MessageQueue } from "./message-queue";
import type { Metrics } from "./metrics";
import type { ProtocolAdapter } from "./protocol";

export class Intake<Header = unknown> implements MessageSink {
  constructor(
    private readonly queue: MessageQueue,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    private readonly adapter: ProtocolAdapter<Header>,
    /** The listener's name, stored and forwarded as source.listener. */
    private readonly listener: string,
    private readonly onEnqueued: () => void,
  ) {}

  /** Stores one message (decoded text) and returns the reply to send back, or null for none. */
  async accept(text: string, remoteAddress: string): Promise<string | null> {
    const reading = this.adapter.read(text, remoteAddress);
    const message: IncomingMessage = {
      protocol: this.adapter.protocol,
      ...reading.key,
      raw: reading.raw,
      receivedAt: new Date().toISOString(),
      listener: this.listener,
      remoteAddress,
    };
    if (reading.refusal) return this.reject(reading.header, message, reading.refusal);
    try {
      const result = await this.queue.enqueue(message);
      if (result.status === "enqueued") {
        this.metrics.count("received");
        this.onEnqueued();
      } else {
        this.metrics.count("duplicates");
        const { protocol, sender, controlId } = message;
        this.log.info("duplicate_message", { protocol, sender, control_id: controlId, id: result.id });
      }
      return this.adapter.reply(reading.header, "accepted", { replyId: result.id });
    } catch (error) {
      // Not stored, so not accepted: an error reply makes the sender resend.
      const reason = `could not store the message: ${String(error)}`;
      this.metrics.error(reason);
      this.log.error("store_failed", { error: String(error) });
      return this.adapter.reply(reading.header, "error", { replyId: crypto.randomUUID(), problem: { reason } });
    }
  }

  /** Answers a message the listener would not take whole; it is not stored. */
  refuse(head: string, reason: string): string | null {
    const reading = this.adapter.read(head, "");
    this.metrics.count("nakked");
    this.log.warn("message_refused", { protocol: this.adapter.protocol, reason, control_id: reading.key.controlId });
    return this.adapter.reply(reading.header, "rejected", { replyId: crypto.randomUUID(), problem: { reason } });
  }

  private async reject(
    header: Header | null,
    message: IncomingMessage,
    refusal: { code: string; reason: string },
  ): Promise<string | null> {
    this.metrics.count("nakked");
    this.log.warn("message_refused", { protocol: message.protocol, reason: refusal.reason, remote_address: message.remoteAddress });
    let id: string = crypto.randomUUID();
    try {
      id = await this.queue.storeRejected(message, refusal.code, refusal.reason);
    } catch (error) {
      this.metrics.error(`could not store a refused message: ${String(error)}`);
      this.log.error("store_failed", { error: String(error) });
    }
    return this.adapter.reply(header, "rejected", { replyId: id, problem: refusal });
  }
}
