// Outbound HL7 v2 over MLLP from the Worker (cloudflare:sockets): pure framing
// helpers, endpoint parsing, and one request/ACK exchange per connection.
import { ApiError } from "../errors";
import { guardedConnect } from "../outbound/connect";
import type { OutboundPolicy } from "../outbound/policy";

export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

/** Wraps one message in the MLLP envelope: VT message FS CR. */
export function frame(message: string): Uint8Array {
  const body = new TextEncoder().encode(message);
  const out = new Uint8Array(body.length + 3);
  out[0] = VT;
  out.set(body, 1);
  out[body.length + 1] = FS;
  out[body.length + 2] = CR;
  return out;
}

/**
 * Incremental MLLP reader: chunks may split anywhere (even between FS and CR);
 * bytes outside a VT…FS CR envelope are noise some senders emit and are dropped.
 */
export class MllpUnframer {
  private buffer: number[] = [];
  private inFrame = false;

  /** Feeds a chunk; returns the message texts completed by it. */
  push(chunk: Uint8Array): string[] {
    const done: string[] = [];
    for (const byte of chunk) {
      if (!this.inFrame) {
        if (byte === VT) {
          this.inFrame = true;
          this.buffer = [];
        }
        continue;
      }
      if (byte === CR && this.buffer.at(-1) === FS) {
        this.buffer.pop();
        done.push(new TextDecoder().decode(new Uint8Array(this.buffer)));
        this.buffer = [];
        this.inFrame = false;
        continue;
      }
      // A VT inside a frame means the sender gave up on the previous frame: start over.
      if (byte === VT) this.buffer = [];
      else this.buffer.push(byte);
    }
    return done;
  }
}

/** All complete frames in a byte sequence (convenience for tests and one-shot use). */
export function unframe(...chunks: Uint8Array[]): string[] {
  const u = new MllpUnframer();
  return chunks.flatMap((c) => u.push(c));
}

export interface MllpEndpoint {
  hostname: string;
  port: number;
  tls: boolean;
}

/** `mllp://host:port` (plain TCP) or `mllps://host:port` (TLS); the port is required, MLLP has no default. */
export function parseMllpEndpoint(endpoint: string): MllpEndpoint {
  const m = /^(mllps?):\/\/(\[[0-9a-fA-F:.]+\]|[^/:?#\s]+):(\d{1,5})\/?$/.exec(endpoint.trim());
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) {
    throw new ApiError(400, "MLLP_ENDPOINT_INVALID", `Connector endpoint ${endpoint} is not mllp://host:port or mllps://host:port`);
  }
  return { hostname: (m[2] as string).replace(/^\[|\]$/g, ""), port, tls: m[1] === "mllps" };
}

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
