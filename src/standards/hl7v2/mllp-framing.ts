// MLLP framing and endpoints, pure (no sockets), so nodes, validation and tools can use them
// without the socket API: the envelope VT message FS CR, an incremental reader, and
// `mllp://host:port` parsing.
import { ApiError } from "../../platform/errors";

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
