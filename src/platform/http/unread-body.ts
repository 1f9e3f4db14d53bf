// A request body the Worker answered without reading is read to its end (and dropped) before
// the answer goes out. workerd does not reuse a keep-alive connection whose request body was not
// consumed: it closes it after the response, without a `Connection: close` the client could see
// (it drops the Worker's own). A client that already sent its next request on that connection
// (Node's keep-alive agent does at once) meets a reset and loses that request: 31 of 340
// keep-alive POSTs answered 401/403/413 early under `npm start`. Measured on a bare Worker under
// Miniflare (200 back-to-back keep-alive POSTs on 4 connections): unread, about half were reset
// and each connection served one request; cancelling the body or answering `Connection: close`
// changed nothing; reading it left no reset, and 4 connections served all 200.
// test/interop/keep-alive.test.ts checks the service under `npm start`'s runtime. On Cloudflare
// the edge terminates the client's connection, so this only costs reading what the client sends
// anyway. A body larger than DRAIN_MAX_BYTES is cancelled instead: the connection closes
// mid-upload, as any server ends an upload it will not take.
import { createMiddleware } from "hono/factory";
import type { HttpEnv } from "./http-env";

/** The most a refusal reads of a body it will not use; four times the default body limit. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/** Reads `reader` to its end, dropping what it reads; cancels once more than `maxBytes` came. */
export async function discard(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes = DRAIN_MAX_BYTES): Promise<void> {
  try {
    for (let read = 0; ; ) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read > maxBytes) return void (await reader.cancel());
    }
  } catch {
    // The client went away: nothing left to read.
  }
}

/** A body nobody read, or undefined (none, or a handler read or holds it). */
function unread(request: Request): ReadableStream<Uint8Array> | undefined {
  const body = request.body;
  return body && !request.bodyUsed && !body.locked ? body : undefined;
}

/** Outermost middleware: reads whatever body the answer left unread (see above). */
export const drainUnreadBody = createMiddleware<HttpEnv>(async (c, next) => {
  // The request as it arrived: middleware may put another in c.req.raw (the body limit does).
  const arrived = c.req.raw;
  await next();
  const body = unread(arrived);
  if (!body) return;
  const length = Number(arrived.headers.get("content-length") ?? Number.NaN);
  if (length > DRAIN_MAX_BYTES) await body.cancel().catch(() => undefined);
  else await discard(body.getReader());
});
