// MLLP framing: VT <message> FS CR. Turns a TCP byte stream into frames and wraps replies.

export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

export type FrameEvent =
  | { kind: "frame"; payload: Buffer }
  /** A frame longer than the limit; `head` holds its first bytes so the NAK can quote MSH-10. */
  | { kind: "oversize"; head: Buffer; length: number };

/** Wraps a payload in an MLLP frame. */
export function frame(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.of(VT), payload, Buffer.of(FS, CR)]);
}

const HEAD_BYTES = 64 * 1024;

/**
 * Incremental decoder. Bytes outside a frame are ignored (so the CR after FS, and any stray
 * line feeds between frames, need no state); a VT inside a frame starts a new frame because
 * the sender gave up on the previous one; FS ends the frame at once, so a sender that omits
 * the trailing CR still gets its ACK.
 */
export class MllpDecoder {
  private inFrame = false;
  private chunks: Buffer[] = [];
  private length = 0;
  private oversize = false;

  constructor(private readonly maxFrameBytes: number) {}

  push(data: Buffer): FrameEvent[] {
    const events: FrameEvent[] = [];
    let i = 0;
    while (i < data.length) {
      const vt = data.indexOf(VT, i);
      if (!this.inFrame) {
        if (vt < 0) break;
        this.begin();
        i = vt + 1;
        continue;
      }
      const fs = data.indexOf(FS, i);
      if (vt >= 0 && (fs < 0 || vt < fs)) {
        this.begin();
        i = vt + 1;
        continue;
      }
      this.append(data.subarray(i, fs < 0 ? data.length : fs));
      if (fs < 0) break;
      events.push(this.finish());
      i = fs + 1;
    }
    return events;
  }

  private begin(): void {
    this.inFrame = true;
    this.chunks = [];
    this.length = 0;
    this.oversize = false;
  }

  private append(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (!this.oversize && this.length + bytes.length <= this.maxFrameBytes) {
      // Copy: the socket may reuse its buffer after this read.
      this.chunks.push(Buffer.from(bytes));
    } else if (!this.oversize) {
      // Keep only enough to quote the header in the NAK; the rest is dropped as it arrives.
      this.oversize = true;
      this.chunks = [Buffer.from(Buffer.concat([...this.chunks, bytes]).subarray(0, HEAD_BYTES))];
    }
    this.length += bytes.length;
  }

  private finish(): FrameEvent {
    const payload = Buffer.concat(this.chunks);
    const event: FrameEvent = this.oversize
      ? { kind: "oversize", head: payload, length: this.length }
      : { kind: "frame", payload };
    this.inFrame = false;
    this.chunks = [];
    this.length = 0;
    this.oversize = false;
    return event;
  }
}
