// Streaming multipart reader (RFC 2046, used by DICOMweb as multipart/related): a byte
// stream in, parts out, each part's body itself a stream. Nothing is buffered beyond one
// network chunk plus a boundary's length, so a 2 GB instance passes through in constant
// memory. The preamble and epilogue are skipped; a body that ends before the closing
// boundary, or a part whose headers never end, is MULTIPART_INVALID.
import { multipartInvalid } from "../errors";
import { utf8, ByteWindow, indexOfBytes } from "./bytes";
import { multipartTypeOf } from "./media-type";

export interface MultipartPart {
  headers: Headers;
  /** The part's own Content-Type, else the multipart's `type` parameter (RFC 2387). */
  contentType: string | undefined;
  /** Read it (or cancel it) before asking for the next part; an unread rest is skipped then. */
  body: ReadableStream<Uint8Array>;
}

export interface ReadMultipartOptions {
  boundary: string;
  /** The media type of parts without a Content-Type header (the `type` parameter). */
  type?: string;
  /** Largest header block a part may have; 16 KiB by default. */
  maxHeaderBytes?: number;
}

const CRLF = utf8("\r\n");
const HEADER_END = utf8("\r\n\r\n");
const decoder = new TextDecoder();

/** The parts of a multipart body, given its Content-Type (boundary and `type` from there). */
export function readMultipartBody(body: ReadableStream<Uint8Array>, contentType: string | null | undefined): AsyncGenerator<MultipartPart> {
  const { boundary, type } = multipartTypeOf(contentType);
  return readMultipart(body, type === undefined ? { boundary } : { boundary, type });
}

/** The parts of a multipart body, one at a time, as the stream is read. */
export async function* readMultipart(stream: ReadableStream<Uint8Array>, options: ReadMultipartOptions): AsyncGenerator<MultipartPart> {
  const delimiter = utf8(`\r\n--${options.boundary}`);
  // The opening boundary may start the body without a CRLF before it: read as if one were there.
  const window = new ByteWindow(stream.getReader(), CRLF);
  try {
    if (!(await skipPast(window, delimiter))) throw multipartInvalid(`No boundary "${options.boundary}" in the multipart body`);
    for (;;) {
      if (!(await window.ensure(2))) throw multipartInvalid("The multipart body ended right after a boundary");
      const view = window.view();
      if (view[0] === 0x2d && view[1] === 0x2d) return; // "--": the closing delimiter; the epilogue is ignored
      await skipBoundaryLine(window);
      const headers = await readHeaders(window, options.maxHeaderBytes ?? 16 * 1024);
      const body = new PartBody(window, delimiter);
      yield { headers, contentType: headers.get("content-type") ?? options.type, body: body.stream() };
      await body.drain();
    }
  } finally {
    await window.close();
  }
}

/** Consumes through the next `delimiter`; false if the stream ends first. */
async function skipPast(window: ByteWindow, delimiter: Uint8Array): Promise<boolean> {
  for (;;) {
    const view = window.view();
    const at = indexOfBytes(view, delimiter);
    if (at >= 0) {
      window.consume(at + delimiter.length);
      return true;
    }
    window.consume(Math.max(0, view.length - delimiter.length + 1));
    if (!(await window.more())) return false;
  }
}

/** After a delimiter: optional transport padding (spaces, tabs), then CRLF. */
async function skipBoundaryLine(window: ByteWindow): Promise<void> {
  for (;;) {
    if (!(await window.ensure(2))) throw multipartInvalid("The multipart body ended inside a boundary line");
    const view = window.view();
    if (view[0] === 0x20 || view[0] === 0x09) window.consume(1);
    else if (view[0] === 0x0d && view[1] === 0x0a) return window.consume(2);
    else throw multipartInvalid("A boundary is followed by something other than a line break");
  }
}

async function readHeaders(window: ByteWindow, maxBytes: number): Promise<Headers> {
  const headers = new Headers();
  if (!(await window.ensure(2))) throw multipartInvalid("The multipart body ended inside a part's headers");
  let view = window.view();
  if (view[0] === 0x0d && view[1] === 0x0a) {
    window.consume(2); // no headers at all
    return headers;
  }
  let end = indexOfBytes(view, HEADER_END);
  while (end < 0) {
    if (view.length > maxBytes) throw multipartInvalid(`A part's headers exceed ${maxBytes} bytes`);
    if (!(await window.more())) throw multipartInvalid("The multipart body ended inside a part's headers");
    view = window.view();
    end = indexOfBytes(view, HEADER_END);
  }
  if (end > maxBytes) throw multipartInvalid(`A part's headers exceed ${maxBytes} bytes`);
  const text = decoder.decode(view.subarray(0, end));
  window.consume(end + HEADER_END.length);
  // Folded lines (starting with space or tab) continue the previous header.
  for (const line of text.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw multipartInvalid(`Malformed part header line "${line.slice(0, 80)}"`);
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      throw multipartInvalid(`Malformed part header "${line.slice(0, 80)}"`);
    }
  }
  return headers;
}

/** MAX_PADDING: transport padding (spaces, tabs) accepted between a boundary and its line break. */
const MAX_PADDING = 64;

/** Whether the bytes at `end` finish a delimiter line ("--" or padding then CRLF), or more are needed to tell. */
function delimiterEnds(view: Uint8Array, end: number): "yes" | "no" | "more" {
  for (let i = end; i < end + MAX_PADDING + 2; i++) {
    if (i + 1 >= view.length) return "more";
    if (i === end && view[i] === 0x2d && view[i + 1] === 0x2d) return "yes";
    if (view[i] === 0x0d && view[i + 1] === 0x0a) return "yes";
    if (view[i] !== 0x20 && view[i] !== 0x09) return "no";
  }
  return "no";
}

/** One part's body: bytes up to the next delimiter, handed out as they arrive. */
class PartBody {
  private done = false;
  // Reads are serialized: a consumer's pull and the skip of an unread rest never interleave.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly window: ByteWindow,
    private readonly delimiter: Uint8Array,
  ) {}

  /** The next bytes of the body, or null once the delimiter is reached. */
  next(): Promise<Uint8Array | null> {
    const step = this.queue.then(() => this.step());
    this.queue = step.catch(() => {});
    return step;
  }

  private async step(): Promise<Uint8Array | null> {
    while (!this.done) {
      const view = this.window.view();
      const at = indexOfBytes(view, this.delimiter);
      const verdict = at < 0 ? "no" : delimiterEnds(view, at + this.delimiter.length);
      if (verdict === "yes") {
        this.window.consume(at + this.delimiter.length);
        this.done = true;
        if (at > 0) return view.subarray(0, at);
        break;
      }
      if (verdict === "no" && at >= 0) {
        // "--boundary" followed by other text is content (e.g. a longer boundary-like line).
        this.window.consume(at + 1);
        return view.subarray(0, at + 1);
      }
      if (verdict === "more") {
        if (at > 0) {
          this.window.consume(at);
          return view.subarray(0, at);
        }
        if (!(await this.window.more())) throw multipartInvalid("The multipart body ended inside a part, before its closing boundary");
        continue;
      }
      // Keep back what could be the start of a delimiter split across chunks.
      const safe = view.length - this.delimiter.length + 1;
      if (safe > 0) {
        this.window.consume(safe);
        return view.subarray(0, safe);
      }
      if (!(await this.window.more())) throw multipartInvalid("The multipart body ended inside a part, before its closing boundary");
    }
    return null;
  }

  async drain(): Promise<void> {
    while ((await this.next()) !== null);
  }

  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            const chunk = await this.next();
            if (chunk === null) controller.close();
            else controller.enqueue(chunk);
          } catch (e) {
            controller.error(e);
          }
        },
      },
      { highWaterMark: 0 },
    );
  }
}
