// Byte helpers of the multipart reader: a pull-based window over a stream, and search.

const encoder = new TextEncoder();
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** Index of `needle` in `haystack` at or after `from`, or -1. */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(needle[0] as number, from); i !== -1 && i <= last; i = haystack.indexOf(needle[0] as number, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/**
 * The unread bytes of a stream, read a chunk at a time on demand. Only what has not been
 * consumed is kept, so a large part passes through without being held whole. Views handed
 * out stay valid: reading more allocates a new window instead of writing into the old one.
 */
export class ByteWindow {
  private buf: Uint8Array;
  private pos = 0;
  private ended = false;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    initial: Uint8Array = new Uint8Array(0),
  ) {
    this.buf = initial;
  }

  /** The unread bytes. */
  view(): Uint8Array {
    return this.buf.subarray(this.pos);
  }

  consume(n: number): void {
    this.pos += n;
  }

  /** Reads one more chunk into the window; false at the end of the stream. */
  async more(): Promise<boolean> {
    while (!this.ended) {
      const { done, value } = await this.reader.read();
      if (done) this.ended = true;
      else if (value.length) {
        const rest = this.view();
        const next = new Uint8Array(rest.length + value.length);
        next.set(rest);
        next.set(value, rest.length);
        this.buf = next;
        this.pos = 0;
        return true;
      }
    }
    return false;
  }

  /** Makes sure at least `n` bytes are unread; false when the stream ends first. */
  async ensure(n: number): Promise<boolean> {
    while (this.view().length < n) if (!(await this.more())) return false;
    return true;
  }

  /** Stops reading the source (the epilogue, or a consumer that gave up). */
  async close(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      await this.reader.cancel().catch(() => {});
    }
  }
}

/** The stream passed through unchanged, and how many bytes have gone through it so far. */
export function counting(stream: ReadableStream<Uint8Array>): { stream: ReadableStream<Uint8Array>; bytes(): number } {
  let n = 0;
  const counted = stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        n += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }),
  );
  return { stream: counted, bytes: () => n };
}
