// Turns one MLLP frame into a durable queue entry and the ACK that may be sent for it:
// the ACK is built only after the queue has committed the message (or its rejection).
import { normaliseSegments } from "../../src/hl7v2/parse";
import { type AckOutcome, ackPolicy, buildAck, type MshHeader, readHeader } from "./protocols/hl7/header";
import type { Logger } from "./log";
import type { IncomingMessage, MessageQueue } from "./message-queue";
import type { Metrics } from "./metrics";

export interface IntakeOptions {
  listener: string;
  encoding: BufferEncoding;
  /** Send a commit ACK even when MSH-15 (NE, ER) says the sender wants none. */
  alwaysAck: boolean;
}

export class Intake {
  constructor(
    private readonly queue: MessageQueue,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    private readonly options: IntakeOptions,
    private readonly onEnqueued: () => void,
  ) {}

  /** Stores one framed message and returns the ACK text to send back, or null for none. */
  async accept(payload: Buffer, remoteAddress: string): Promise<string | null> {
    const raw = normaliseSegments(payload.toString(this.options.encoding));
    const base = { raw, receivedAt: new Date().toISOString(), listener: this.options.listener, remoteAddress };
    const parsed = readHeader(raw);
    if (!parsed.ok) return this.reject(null, { ...base, sender: null, controlId: null, messageType: null }, "100", parsed.error);
    const header = parsed.header;
    const message: IncomingMessage = {
      ...base,
      sender: senderKey(header, remoteAddress),
      controlId: header.controlId || null,
      messageType: header.messageType || null,
    };
    if (!header.controlId) return this.reject(header, message, "101", "MSH-10 message control id is empty");
    if (!header.messageType) return this.reject(header, message, "101", "MSH-9 message type is empty");
    try {
      const result = await this.queue.enqueue(message);
      if (result.status === "enqueued") {
        this.metrics.count("received");
        this.onEnqueued();
      } else {
        this.metrics.count("duplicates");
        this.log.info("duplicate_message", { sender: message.sender, control_id: header.controlId, id: result.id });
      }
      return this.ack(header, "accepted", result.id);
    } catch (error) {
      // Not stored, so not accepted: an error ACK makes the sender resend.
      const reason = `could not store the message: ${String(error)}`;
      this.metrics.error(reason);
      this.log.error("store_failed", { error: String(error) });
      return this.ack(header, "error", crypto.randomUUID(), "207", reason);
    }
  }

  /** Answers a frame larger than the limit; only its head was kept, enough to quote MSH-10. */
  rejectOversize(head: Buffer, length: number, limit: number): string | null {
    const parsed = readHeader(normaliseSegments(head.toString(this.options.encoding)));
    const header = parsed.ok ? parsed.header : null;
    const reason = `message of ${length} bytes exceeds the ${limit}-byte frame limit`;
    this.metrics.count("nakked");
    this.log.warn("oversize_frame", { length, limit, control_id: header?.controlId });
    return this.ack(header, "rejected", crypto.randomUUID(), "207", reason);
  }

  private async reject(
    header: MshHeader | null,
    message: IncomingMessage,
    code: string,
    reason: string,
  ): Promise<string | null> {
    this.metrics.count("nakked");
    this.log.warn("message_refused", { reason, remote_address: message.remoteAddress });
    let id: string = crypto.randomUUID();
    try {
      id = await this.queue.storeRejected(message, code, reason);
    } catch (error) {
      this.metrics.error(`could not store a refused message: ${String(error)}`);
      this.log.error("store_failed", { error: String(error) });
    }
    return this.ack(header, "rejected", id, code, reason);
  }

  private ack(
    header: MshHeader | null,
    outcome: AckOutcome,
    ackControlId: string,
    errorCode?: string,
    errorText?: string,
  ): string | null {
    const code = ackPolicy(header, outcome, this.options.alwaysAck);
    if (code === null) return null;
    return buildAck(header, { code, ackControlId, errorCode, errorText });
  }
}

/** The sender whose messages keep their order and whose MSH-10 values must be unique. */
export function senderKey(header: MshHeader, remoteAddress: string): string {
  if (!header.sendingApplication && !header.sendingFacility) return `connection:${remoteAddress}`;
  return `${header.sendingApplication}|${header.sendingFacility}`;
}
