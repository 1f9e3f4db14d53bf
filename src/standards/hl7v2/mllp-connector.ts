// Outbound HL7 v2 over MLLP from the Worker (cloudflare:sockets): one request/ACK exchange per
// connection, a connection probe, and the mllp connector type that offers both to the
// connectors feature. Framing and endpoint parsing are in mllp-framing.ts.
import type { ConnectorType } from "../../features/connectors";
import { ApiError } from "../../platform/errors";
import { readAck } from "./ack";
import { guardedConnect } from "../../platform/outbound/connect";
import type { OutboundPolicy } from "../../platform/outbound/policy";
import { frame, type MllpEndpoint, MllpUnframer, parseMllpEndpoint } from "./mllp-framing";

/** A TCP (or TLS) connection to the endpoint, if the outbound guard allows it. */
function open(endpoint: MllpEndpoint, policy: OutboundPolicy): Socket {
  return guardedConnect(policy, { hostname: endpoint.hostname, port: endpoint.port }, { secureTransport: endpoint.tls ? "on" : "off", allowHalfOpen: false });
}

export interface MllpSendOptions {
  timeoutMs: number;
  /** Which destinations are allowed (outboundPolicyOf(env)). */
  policy: OutboundPolicy;
  /** The execution's signal: a cancelled run stops waiting for the ACK. */
  signal?: AbortSignal;
}

/**
 * Sends one framed message and resolves with the first framed answer (the ACK).
 * Errors: HL7_SEND_TIMEOUT when no complete answer arrives in time,
 * HL7_SEND_FAILED when the connection fails or closes before an answer.
 */
export async function mllpSend(endpoint: MllpEndpoint, message: string, opts: MllpSendOptions): Promise<string> {
  const where = `${endpoint.hostname}:${endpoint.port}`;
  const socket = open(endpoint, opts.policy);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError(504, "HL7_SEND_TIMEOUT", `No ACK from ${where} within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    onAbort = () => reject(new ApiError(499, "HL7_SEND_CANCELLED", `Sending to ${where} was cancelled`));
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const exchange = async (): Promise<string> => {
    await socket.opened;
    const writer = socket.writable.getWriter();
    await writer.write(frame(message));
    writer.releaseLock();
    const reader = socket.readable.getReader();
    const unframer = new MllpUnframer();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new ApiError(502, "HL7_SEND_FAILED", `${where} closed the connection without an ACK`);
      const [ack] = unframer.push(value);
      if (ack !== undefined) return ack;
    }
  };
  try {
    return await Promise.race([
      exchange().catch((err: unknown) => {
        if (err instanceof ApiError) throw err;
        throw new ApiError(502, "HL7_SEND_FAILED", `MLLP connection to ${where} failed: ${err instanceof Error ? err.message : String(err)}`);
      }),
      stop,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
    // Closing rejects pending reads; that rejection is expected and must not surface as unhandled.
    socket.close().catch(() => undefined);
  }
}

/** How long a kept-open connection may sit unused before it is closed (and reopened by the next exchange). */
export const MLLP_IDLE_CLOSE_MS = 30_000;

/**
 * One MLLP connection kept open across exchanges (a destination's deliveries): exchanges are
 * serialized on it (MLLP carries one message and its ACK at a time), and it is opened on the
 * first exchange and again after it breaks. A connection that fails or closes is never used
 * again: the next exchange opens a new one. One that times out, is cancelled, or receives bytes
 * nobody asked for is closed, so a late ACK can never be read as the next message's. It closes
 * itself after MLLP_IDLE_CLOSE_MS unused. Errors are mllpSend's.
 */
export class MllpConnection {
  private socket: Socket | null = null;
  private waiter: { resolve: (ack: string) => void; reject: (err: ApiError) => void } | null = null;
  private turn: Promise<unknown> = Promise.resolve();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly where: string;
  /** Connections opened so far. */
  opened = 0;

  constructor(
    private readonly endpoint: MllpEndpoint,
    private readonly policy: OutboundPolicy,
    private readonly idleMs = MLLP_IDLE_CLOSE_MS,
  ) {
    this.where = `${endpoint.hostname}:${endpoint.port}`;
  }

  /** Sends one framed message and resolves with its ACK, after the exchanges before it. */
  exchange(message: string, opts: Omit<MllpSendOptions, "policy">): Promise<string> {
    const run = this.turn.then(() => this.exchangeNow(message, opts));
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Closes the connection; the next exchange opens another. */
  close(): void {
    clearTimeout(this.idleTimer);
    const socket = this.socket;
    this.socket = null;
    // Closing rejects pending reads; that rejection is expected and must not surface as unhandled.
    socket?.close().catch(() => undefined);
    this.fail(new ApiError(502, "HL7_SEND_FAILED", `The connection to ${this.where} was closed`));
  }

  private fail(err: ApiError): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(err);
  }

  /** A new connection, with its reader: each framed answer goes to the exchange waiting for it. */
  private open(): Socket {
    const socket = open(this.endpoint, this.policy);
    this.opened++;
    this.socket = socket;
    const ended = (reason: string) => {
      if (this.socket !== socket) return;
      this.socket = null;
      socket.close().catch(() => undefined);
      this.fail(new ApiError(502, "HL7_SEND_FAILED", reason));
    };
    void (async () => {
      const unframer = new MllpUnframer();
      try {
        await socket.opened;
        const reader = socket.readable.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return ended(`${this.where} closed the connection without an ACK`);
          if (this.socket !== socket) return;
          for (const ack of unframer.push(value)) {
            const waiter = this.waiter;
            // An answer nobody waits for: the peer and this side disagree on what was sent.
            if (!waiter) return ended(`${this.where} sent an answer to no message`);
            this.waiter = null;
            waiter.resolve(ack);
          }
        }
      } catch (err) {
        ended(`MLLP connection to ${this.where} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    })();
    return socket;
  }

  private async exchangeNow(message: string, opts: Omit<MllpSendOptions, "policy">): Promise<string> {
    clearTimeout(this.idleTimer);
    if (opts.signal?.aborted) throw new ApiError(499, "HL7_SEND_CANCELLED", `Sending to ${this.where} was cancelled`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const socket = this.socket ?? this.open();
      const answer = new Promise<string>((resolve, reject) => {
        this.waiter = { resolve, reject };
        // Either closes the connection: an ACK arriving later must not answer the next message.
        const stop = (err: ApiError) => {
          this.waiter = null;
          reject(err);
          this.close();
        };
        timer = setTimeout(() => stop(new ApiError(504, "HL7_SEND_TIMEOUT", `No ACK from ${this.where} within ${opts.timeoutMs} ms`)), opts.timeoutMs);
        onAbort = () => stop(new ApiError(499, "HL7_SEND_CANCELLED", `Sending to ${this.where} was cancelled`));
        opts.signal?.addEventListener("abort", onAbort, { once: true });
      });
      // Settled by the reader, the timer or the write below: never left unhandled.
      answer.catch(() => undefined);
      try {
        await socket.opened;
        const writer = socket.writable.getWriter();
        try {
          await writer.write(frame(message));
        } finally {
          writer.releaseLock();
        }
      } catch (err) {
        if (this.socket === socket) this.close();
        throw err instanceof ApiError ? err : new ApiError(502, "HL7_SEND_FAILED", `MLLP connection to ${this.where} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      return await answer;
    } finally {
      clearTimeout(timer);
      if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
      this.waiter = null;
      if (this.socket) this.idleTimer = setTimeout(() => this.close(), this.idleMs);
    }
  }
}

/** Opens (and closes) a connection to check an MLLP endpoint is reachable; used by the connector test. */
export async function mllpProbe(endpoint: MllpEndpoint, timeoutMs: number, policy: OutboundPolicy): Promise<void> {
  const socket = open(endpoint, policy);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      socket.opened,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    socket.close().catch(() => undefined);
  }
}

/** The mllp connector type: endpoints mllp://host:port (mllps:// for TLS), one message and its ACK per exchange. */
export const MLLP_CONNECTOR_TYPE: ConnectorType = {
  type: "mllp",
  name: "HL7 v2 MLLP endpoint",
  description:
    "An HL7 v2 interface engine or EHR listening for MLLP at mllp://host:port (mllps:// for TLS); used by the HL7 send node. The connection test opens a TCP (or TLS) connection",
  auth_kinds: ["none"],
  schemes: ["mllp", "mllps"],
  test_path: "",
  transport: {
    address: parseMllpEndpoint,
    probe: (endpoint, timeoutMs, policy) => mllpProbe(parseMllpEndpoint(endpoint), timeoutMs, policy),
    exchange: (endpoint, message, opts) => mllpSend(parseMllpEndpoint(endpoint), message, opts),
    connect: (endpoint, policy) => new MllpConnection(parseMllpEndpoint(endpoint), policy),
    readAnswer: readAck,
  },
};
