// MLLP deliveries of the relay over kept-open connections: one per destination (the transmit's
// destination_id and address), carrying that destination's messages one after another (MLLP has
// one message and its ACK in flight at a time). A connection that fails, closes or times out is
// dropped, so a late ACK is never read as the next message's; the next transmit opens another.
// One unused for IDLE_CLOSE_MS is closed. Never throws: every failure is an AttemptResult.
import net from "node:net";
import { frame, MllpDecoder } from "../listeners/mllp/framing";
import { type AttemptResult, type FailureClass, RESPONSE_EXCERPT_CHARS } from "./protocol";

const MAX_ACK_BYTES = 1024 * 1024;
/** How long a connection may sit unused before it is closed. */
export const IDLE_CLOSE_MS = 30_000;

export const fail = (cls: FailureClass, message: string, extra: Partial<AttemptResult> = {}): AttemptResult => ({ ok: false, ...extra, failure: { class: cls, message } });
export const excerpt = (text: string) => text.slice(0, RESPONSE_EXCERPT_CHARS);

/** An HL7 ACK's MSA-1: AA/CA delivered, AE/CE nack (the service decides if it retries), AR/CR reject. */
export function ackResult(ack: string): AttemptResult {
  const segment = ack.split(/\r\n|\r|\n/).find((s) => s.startsWith("MSA"));
  if (!segment) return fail("invalid_response", "the answer has no MSA segment", { response: excerpt(ack) });
  const code = segment.split(segment.charAt(3) || "|")[1]?.trim().toUpperCase() ?? "";
  const response = excerpt(ack);
  if (code === "AA" || code === "CA") return { ok: true, ack_code: code, response };
  if (code === "AR" || code === "CR") return fail("reject", `the receiver rejected the message (${code})`, { ack_code: code, response });
  if (code === "AE" || code === "CE") return fail("nack", `the receiver answered ${code}`, { ack_code: code, response });
  return fail("invalid_response", `unknown acknowledgment code ${code || "(empty)"}`, { response });
}

const errorClass = (e: NodeJS.ErrnoException): FailureClass =>
  e.code === "ECONNREFUSED" || e.code === "ECONNRESET" || e.code === "EPIPE" ? "refused" : e.code === "ETIMEDOUT" ? "timeout" : "unreachable";

/** One kept-open connection to host:port. */
class MllpLink {
  private socket: net.Socket | null = null;
  private waiter: ((result: AttemptResult) => void) | null = null;
  private turn: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {}

  exchange(body: string, timeoutMs: number): Promise<AttemptResult> {
    const run = this.turn.then(() => this.exchangeNow(body, timeoutMs));
    this.turn = run;
    return run;
  }

  close(): void {
    clearTimeout(this.idleTimer);
    this.drop(fail("refused", `the connection to ${this.host}:${this.port} was closed`));
  }

  /** Forgets the connection; the exchange waiting on it (if any) gets `result`. */
  private drop(result: AttemptResult): void {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.(result);
  }

  private open(): net.Socket {
    const socket = net.connect({ host: this.host, port: this.port });
    this.socket = socket;
    socket.setNoDelay(true);
    const decoder = new MllpDecoder(MAX_ACK_BYTES);
    let error: NodeJS.ErrnoException | undefined;
    const mine = () => this.socket === socket;
    socket.on("data", (data: Buffer) => {
      if (!mine()) return;
      for (const event of decoder.push(data)) {
        const waiter = this.waiter;
        if (event.kind !== "frame") return this.drop(fail("invalid_response", "the ACK is larger than the relay reads"));
        // An answer nobody waits for: the receiver and the relay disagree on what was sent.
        if (!waiter) return this.drop(fail("invalid_response", "an answer to no message"));
        this.waiter = null;
        waiter(ackResult(event.payload.toString("utf8")));
      }
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e;
    });
    socket.on("close", () => {
      if (!mine()) return;
      this.drop(error ? fail(errorClass(error), `${this.host}:${this.port}: ${error.code ?? error.message}`) : fail("refused", `${this.host}:${this.port} closed the connection before its ACK`));
    });
    return socket;
  }

  private exchangeNow(body: string, timeoutMs: number): Promise<AttemptResult> {
    clearTimeout(this.idleTimer);
    return new Promise<AttemptResult>((resolve) => {
      const timer = setTimeout(() => this.drop(fail("timeout", `no ACK from ${this.host}:${this.port} within ${timeoutMs} ms`)), timeoutMs);
      this.waiter = (result) => {
        clearTimeout(timer);
        resolve(result);
      };
      // Written before the connection opens, it waits in the socket's buffer.
      (this.socket ?? this.open()).write(frame(Buffer.from(body, "utf8")));
    }).finally(() => {
      this.idleTimer = setTimeout(() => {
        this.close();
        this.onIdle();
      }, this.idleMs);
      this.idleTimer.unref();
    });
  }
}

/** The relay's MLLP connections, one per destination and address. */
export class MllpLinks {
  private readonly links = new Map<string, MllpLink>();

  constructor(private readonly idleMs = IDLE_CLOSE_MS) {}

  /** One message over `key`'s connection (opened if it has none) and its ACK. */
  send(key: string, host: string, port: number, body: string, timeoutMs: number): Promise<AttemptResult> {
    const id = `${key} ${host}:${port}`;
    let link = this.links.get(id);
    if (!link) {
      const made = new MllpLink(host, port, this.idleMs, () => this.links.get(id) === made && this.links.delete(id));
      link = made;
      this.links.set(id, link);
    }
    return link.exchange(body, timeoutMs);
  }

  /** The connections held (open, or to be opened by a queued message), one per destination and address. */
  held(): number {
    return this.links.size;
  }

  closeAll(): void {
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }
}
