// Streams NDJSON lines into one gzip-compressed R2 object through a multipart
// upload. Memory stays flat: at most one part (plus what gzip holds) is buffered.
// R2 wants every part but the last to be the same size, so parts are cut exactly.

export const PART_SIZE = 5 * 1024 * 1024;

export interface UploadResult {
  lines: number;
  /** Uncompressed NDJSON bytes. */
  bytes: number;
  compressedBytes: number;
}

export class GzipNdjsonUpload {
  private readonly encoder = new TextEncoder();
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly pumped: Promise<void>;
  private readonly parts: R2UploadedPart[] = [];
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private compressed = 0;
  private lines = 0;
  private bytes = 0;

  private constructor(
    private readonly upload: R2MultipartUpload,
    private readonly partSize: number,
  ) {
    const gzip = new CompressionStream("gzip");
    this.writer = gzip.writable.getWriter();
    this.pumped = this.pump(gzip.readable.getReader());
    // close() awaits it; after abort() its rejection is expected and must not go unhandled.
    this.pumped.catch(() => {});
  }

  static async open(bucket: R2Bucket, key: string, partSize = PART_SIZE): Promise<GzipNdjsonUpload> {
    const upload = await bucket.createMultipartUpload(key, {
      httpMetadata: { contentType: "application/fhir+ndjson", contentEncoding: "gzip" },
    });
    return new GzipNdjsonUpload(upload, partSize);
  }

  get uploadId(): string {
    return this.upload.uploadId;
  }

  get lineCount(): number {
    return this.lines;
  }

  get byteCount(): number {
    return this.bytes;
  }

  /** Writes many lines as one chunk: one encode and one stream write per page, not per resource. */
  async writeLines(lines: string[]): Promise<void> {
    if (!lines.length) return;
    const chunk = this.encoder.encode(`${lines.join("\n")}\n`);
    this.lines += lines.length;
    this.bytes += chunk.byteLength;
    await this.writer.write(chunk);
  }

  async close(): Promise<UploadResult> {
    await this.writer.close();
    await this.pumped;
    if (this.pendingBytes > 0 || this.parts.length === 0) await this.flush(this.pendingBytes);
    await this.upload.complete(this.parts);
    return { lines: this.lines, bytes: this.bytes, compressedBytes: this.compressed };
  }

  async abort(): Promise<void> {
    await this.writer.abort().catch(() => {});
    await this.upload.abort().catch(() => {});
  }

  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      this.pending.push(value);
      this.pendingBytes += value.byteLength;
      this.compressed += value.byteLength;
      while (this.pendingBytes >= this.partSize) await this.flush(this.partSize);
    }
  }

  /** Uploads exactly `size` bytes from the front of the buffer as the next part. */
  private async flush(size: number): Promise<void> {
    const part = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      const head = this.pending[0]!;
      const take = Math.min(head.byteLength, size - filled);
      part.set(head.subarray(0, take), filled);
      filled += take;
      if (take === head.byteLength) this.pending.shift();
      else this.pending[0] = head.subarray(take);
    }
    this.pendingBytes -= size;
    this.parts.push(await this.upload.uploadPart(this.parts.length + 1, part));
  }
}

/** Aborts an upload left behind by an interrupted run. */
export async function abortUpload(bucket: R2Bucket, key: string, uploadId: string): Promise<void> {
  await bucket.resumeMultipartUpload(key, uploadId).abort().catch(() => {});
}
