// Rejects bodies over MAX_BODY_BYTES (413), JSON bodies nested too deeply (400) and non-JSON
// bodies on JSON routes (415), before any handler reads them.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError, payloadTooLarge, unsupportedMediaType } from "../errors";
import { jsonTextTooDeep, tooDeep } from "./body-depth";
import type { HttpEnv } from "./http-env";
import { discard } from "./unread-body";
import { settingsOf } from "../settings";

const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

export function maxBodyBytes(raw: string | undefined): number {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_BODY_BYTES;
}

const limited = new WeakSet<object>();
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * Reads the client's body through `read`. A read that fails is the client's connection ending
 * before its body did (workerd: "Network connection lost."): a 400 nobody may receive, logged as
 * the client's doing, never as an unhandled error of the service.
 */
async function clientBody<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, "BODY_INCOMPLETE", "The request body ended before it was complete: the connection closed mid-body");
  }
}

/**
 * Holds a body without a Content-Length to `limit` bytes as it arrives (413 beyond), buffered for
 * the handler. Past the limit the rest is read and dropped before the 413 (unread-body.ts says why).
 */
async function boundedChunks(c: Context<HttpEnv>, limit: number): Promise<void> {
  const reader = c.req.raw.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await discard(reader);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  c.req.raw = new Request(c.req.raw, { body });
}

/**
 * The limits of every request body a route accepts: 413 over MAX_BODY_BYTES, then, for a JSON
 * body, 400 when it nests deeper than MAX_BODY_DEPTH (body-depth.ts). The depth is read from the
 * text, which Hono keeps: the handler's c.req.json() parses it once, its c.req.text() gets it back.
 */
export const bodyLimit = createMiddleware<HttpEnv>(async (c, next) => {
  // Once per request, wherever it is mounted: a second pass would read a body the first consumed.
  if (limited.has(c.req)) return next();
  limited.add(c.req);
  if (!c.req.raw.body) return next();
  const limit = maxBodyBytes(settingsOf(c.env).MAX_BODY_BYTES);
  const length = c.req.raw.headers.get("content-length");
  if (length !== null && !c.req.raw.headers.has("transfer-encoding")) {
    // Refused unread: drainUnreadBody reads it before the answer goes out.
    if (Number(length) > limit) throw payloadTooLarge(limit);
  } else await clientBody(() => boundedChunks(c, limit));
  if (METHODS_WITH_BODY.has(c.req.method) && JSON_TYPE.test(c.req.header("content-type") ?? "") && jsonTextTooDeep(await clientBody(() => c.req.text()))) throw tooDeep();
  await next();
});

function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  return length !== null ? Number(length) > 0 : req.body !== null;
}

/** For the management API: a request body, when present, must be JSON. */
export function requireJsonBody(mediaTypes: RegExp = /^application\/(?:[\w.+-]+\+)?json\b/i) {
  return createMiddleware<HttpEnv>(async (c, next) => {
    if (METHODS_WITH_BODY.has(c.req.method) && hasBody(c.req.raw)) {
      const type = c.req.header("content-type") ?? "";
      if (!mediaTypes.test(type)) {
        throw unsupportedMediaType(
          `Content-Type must be application/json, got ${type ? `"${type}"` : "none"}`,
        );
      }
    }
    await next();
  });
}
