// The streaming multipart reader and writer: boundaries (quoted, split across chunks),
// preamble and epilogue, parts without headers, truncation, and large parts that must
// pass through without being held whole.
import { describe, expect, it } from "vitest";
import { DicomwebError } from "../../../../src/standards/dicomweb/errors";
import { multipartTypeOf, parseMediaType } from "../../../../src/standards/dicomweb/multipart/media-type";
import { type MultipartPart, readMultipart, readMultipartBody } from "../../../../src/standards/dicomweb/multipart/reader";
import { writeMultipart } from "../../../../src/standards/dicomweb/multipart/writer";
import { failure } from "./support";

const enc = new TextEncoder();

/** A stream of `text` cut into chunks of `size` bytes (1 splits every boundary). */
function chunked(bytes: Uint8Array | string, size: number): ReadableStream<Uint8Array> {
  const data = typeof bytes === "string" ? enc.encode(bytes) : bytes;
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= data.length) return c.close();
      c.enqueue(data.slice(at, at + size));
      at += size;
    },
  });
}

async function collect(parts: AsyncGenerator<MultipartPart>) {
  const out: { headers: Record<string, string>; contentType: string | undefined; text: string }[] = [];
  for await (const part of parts) out.push({ headers: Object.fromEntries(part.headers), contentType: part.contentType, text: await new Response(part.body).text() });
  return out;
}

const BODY =
  "This is the preamble, to be ignored.\r\n" +
  "--b1\r\nContent-Type: application/dicom\r\nContent-Location: /a\r\n\r\nfirst--b1 not a boundary\r\n--b1x still not\r\n" +
  "--b1  \t\r\n\r\nsecond, no headers\r\n" +
  "--b1--\r\nThis is the epilogue, also ignored.\r\n";

async function expectMultipartError(promise: Promise<unknown>, message: RegExp) {
  const err = await failure(promise);
  expect(err.code).toBe("MULTIPART_INVALID");
  expect(err.message).toMatch(message);
}

describe("media type", () => {
  it("reads quoted boundaries and the type parameter, case-insensitively", () => {
    expect(multipartTypeOf('Multipart/Related; TYPE="application/DICOM"; boundary="a b:c=d?"')).toEqual({ boundary: "a b:c=d?", type: "application/dicom" });
    expect(parseMediaType('x/y; a="q\\"uo\\\\te"; b=c').params).toEqual({ a: 'q"uo\\te', b: "c" });
    expect(multipartTypeOf("multipart/related;boundary=xyz")).toEqual({ boundary: "xyz" });
    expect(parseMediaType('application/dicom; transfer-syntax=1.2.840.10008.1.2.1').params["transfer-syntax"]).toBe("1.2.840.10008.1.2.1");
  });

  it("refuses a missing, empty, too long or badly quoted boundary", () => {
    for (const bad of ["multipart/related", "multipart/related; boundary=", `multipart/related; boundary=${"x".repeat(71)}`, 'multipart/related; boundary="abc', "application/json; boundary=x", undefined]) {
      expect(() => multipartTypeOf(bad)).toThrow(DicomwebError);
    }
  });
});

describe("readMultipart", () => {
  it("skips preamble and epilogue, and keeps near-boundaries inside a part", async () => {
    for (const size of [1, 3, 7, 1000]) {
      const parts = await collect(readMultipart(chunked(BODY, size), { boundary: "b1", type: "application/octet-stream" }));
      expect(parts).toEqual([
        { headers: { "content-type": "application/dicom", "content-location": "/a" }, contentType: "application/dicom", text: "first--b1 not a boundary\r\n--b1x still not" },
        { headers: {}, contentType: "application/octet-stream", text: "second, no headers" },
      ]);
    }
  });

  it("reads a body whose first boundary has no line break before it, and empty parts", async () => {
    const parts = await collect(readMultipartBody(chunked("--q b\r\n\r\n\r\n--q b\r\nX-A: 1\r\n  continued\r\n\r\nz\r\n--q b--", 2), 'multipart/related; boundary="q b"'));
    expect(parts.map((p) => p.text)).toEqual(["", "z"]);
    expect(parts[1]?.headers).toEqual({ "x-a": "1 continued" });
  });

  it("skips the unread rest of a part when the next one is asked for", async () => {
    const texts: string[] = [];
    for await (const part of readMultipart(chunked(BODY, 5), { boundary: "b1" })) {
      const reader = part.body.getReader();
      const { value } = await reader.read();
      texts.push(new TextDecoder().decode(value).slice(0, 1));
      reader.releaseLock();
    }
    expect(texts).toEqual(["f", "s"]);
  });

  it("refuses truncated bodies, a missing boundary and runaway headers with MULTIPART_INVALID", async () => {
    await expectMultipartError(collect(readMultipart(chunked("--b1\r\n\r\nhalf a part", 4), { boundary: "b1" })), /ended inside a part/);
    await expectMultipartError(collect(readMultipart(chunked("no boundary here", 4), { boundary: "b1" })), /No boundary/);
    await expectMultipartError(collect(readMultipart(chunked(`--b1\r\nX: ${"y".repeat(100)}`, 8), { boundary: "b1", maxHeaderBytes: 64 })), /exceed 64 bytes/);
    await expectMultipartError(collect(readMultipart(chunked("--b1\r\nno colon\r\n\r\nx\r\n--b1--", 8), { boundary: "b1" })), /Malformed part header/);
    await expectMultipartError(collect(readMultipart(chunked("--b1junk\r\n\r\nx\r\n--b1--", 8), { boundary: "b1" })), /followed by something other/);
  });

  it("passes a large part through in chunks without holding it whole", async () => {
    const size = 64 * 1024 * 1024;
    const chunk = new Uint8Array(64 * 1024).fill(0x41);
    let sent = 0;
    let phase: "head" | "body" | "tail" | "done" = "head";
    const source = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (phase === "head") {
            c.enqueue(enc.encode("--big\r\nContent-Type: application/dicom\r\n\r\n"));
            phase = "body";
          } else if (phase === "body") {
            c.enqueue(chunk);
            sent += chunk.length;
            if (sent >= size) phase = "tail";
          } else if (phase === "tail") {
            c.enqueue(enc.encode("\r\n--big--\r\n"));
            phase = "done";
          } else c.close();
        },
      },
      { highWaterMark: 0 },
    );
    let received = 0;
    let largest = 0;
    for await (const part of readMultipart(source, { boundary: "big" })) {
      const reader = part.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
        largest = Math.max(largest, value.length);
        // The reader may not run ahead of its consumer: the source is pulled on demand.
        expect(sent - received).toBeLessThanOrEqual(2 * chunk.length);
      }
    }
    expect(received).toBe(size);
    expect(largest).toBeLessThanOrEqual(chunk.length + 64);
  });
});

describe("writeMultipart", () => {
  it("writes parts from streams, bytes and text that the reader reads back", async () => {
    const stream = chunked("streamed body", 4);
    const written = writeMultipart(
      [
        { body: stream },
        { body: enc.encode("bytes"), headers: { "Content-Location": "/x" } },
        { body: "text", contentType: "text/plain" },
      ],
      { type: "application/dicom" },
    );
    expect(written.contentType).toBe(`multipart/related; type="application/dicom"; boundary=${written.boundary}`);
    const parts = await collect(readMultipartBody(written.body, written.contentType));
    expect(parts.map((p) => [p.contentType, p.text, p.headers["content-location"]])).toEqual([
      ["application/dicom", "streamed body", undefined],
      ["application/dicom", "bytes", "/x"],
      ["text/plain", "text", undefined],
    ]);
  });

  it("quotes a boundary that needs it and refuses header injection", async () => {
    const written = writeMultipart([{ body: "x" }], { boundary: "has space", type: "application/dicom" });
    expect(written.contentType).toBe('multipart/related; type="application/dicom"; boundary="has space"');
    expect(await collect(readMultipartBody(written.body, written.contentType))).toHaveLength(1);
    const bad = writeMultipart([{ body: "x", headers: { "X-A": "1\r\nContent-Type: text/html" } }]);
    await expect(new Response(bad.body).text()).rejects.toThrow(/malformed/);
  });
});
