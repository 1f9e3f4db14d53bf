// Streaming multipart writer: parts (each a stream, bytes or text) in, one body stream
// out, produced as it is read, so instances pass through without being held whole.
import { invalidRequest } from "../errors";
import { utf8 } from "./bytes";
import { formatParam, isValidBoundary } from "./media-type";

export type PartBodySource = ReadableStream<Uint8Array> | Uint8Array | ArrayBuffer | string;

export interface OutgoingPart {
  /** Defaults to the multipart's `type`. */
  contentType?: string;
  /** More part headers (e.g. Content-Location). */
  headers?: Record<string, string>;
  body: PartBodySource;
}

export interface WriteMultipartOptions {
  /** `related` by default. */
  subtype?: string;
  /** RFC 2387 `type` parameter, and the default Content-Type of each part. */
  type?: string;
  /** A fixed boundary (tests); a random one by default. */
  boundary?: string;
}

export interface MultipartBody {
  contentType: string;
  boundary: string;
  body: ReadableStream<Uint8Array>;
}

/** A random boundary: with 122 random bits no part will contain it by chance. */
export const randomBoundary = (): string => `dicomweb-${crypto.randomUUID()}`;

/** Writes `parts` as one multipart body; its Content-Type carries the boundary and `type`. */
export function writeMultipart(parts: Iterable<OutgoingPart> | AsyncIterable<OutgoingPart>, options: WriteMultipartOptions = {}): MultipartBody {
  const boundary = options.boundary ?? randomBoundary();
  if (!isValidBoundary(boundary)) throw invalidRequest(`"${boundary}" is not a valid multipart boundary`);
  const params = [options.type === undefined ? undefined : formatParam("type", options.type), formatParam("boundary", boundary)].filter(Boolean);
  const contentType = [`multipart/${options.subtype ?? "related"}`, ...params].join("; ");
  return { contentType, boundary, body: streamOf(chunks(parts, boundary, options.type)) };
}

async function* chunks(parts: Iterable<OutgoingPart> | AsyncIterable<OutgoingPart>, boundary: string, type: string | undefined): AsyncGenerator<Uint8Array> {
  let first = true;
  for await (const part of parts) {
    yield utf8(`${first ? "" : "\r\n"}--${boundary}\r\n${headerBlock(part, type)}\r\n`);
    first = false;
    yield* bodyChunks(part.body);
  }
  yield utf8(`${first ? "" : "\r\n"}--${boundary}--\r\n`);
}

function headerBlock(part: OutgoingPart, type: string | undefined): string {
  const headers: Record<string, string> = { ...(part.headers ?? {}) };
  const contentType = part.contentType ?? type;
  if (contentType !== undefined) headers["Content-Type"] = contentType;
  let out = "";
  for (const [name, value] of Object.entries(headers)) {
    // A line break in a value would start a header (or a body) of the caller's choosing.
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name) || /[\r\n]/.test(value)) throw invalidRequest(`Part header ${JSON.stringify(name)} is malformed`);
    out += `${name}: ${value}\r\n`;
  }
  return out;
}

async function* bodyChunks(body: PartBodySource): AsyncGenerator<Uint8Array> {
  if (typeof body === "string") return yield utf8(body);
  if (body instanceof Uint8Array) return yield body;
  if (body instanceof ArrayBuffer) return yield new Uint8Array(body);
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
  }
}

function streamOf(source: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const { done, value } = await source.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: async () => {
        await source.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
