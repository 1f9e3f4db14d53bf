// Rejects bodies over MAX_BODY_BYTES (413), JSON bodies nested too deeply (400) and non-JSON
// bodies on JSON routes (415), before any handler reads them.
import { createMiddleware } from "hono/factory";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { payloadTooLarge, unsupportedMediaType } from "../errors";
import { jsonTextTooDeep, tooDeep } from "./body-depth";
import type { HttpEnv } from "./http-env";
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
 * The limits of every request body a route accepts: 413 over MAX_BODY_BYTES, then, for a JSON
 * body, 400 when it nests deeper than MAX_BODY_DEPTH (body-depth.ts). The depth is read from the
 * text, which Hono keeps: the handler's c.req.json() parses it once, its c.req.text() gets it back.
 */
export const bodyLimit = createMiddleware<HttpEnv>(async (c, next) => {
  // Once per request, wherever it is mounted: a second pass would read a body the first consumed.
  if (limited.has(c.req)) return next();
  limited.add(c.req);
  const limit = maxBodyBytes(settingsOf(c.env).MAX_BODY_BYTES);
  return honoBodyLimit({
    maxSize: limit,
    onError: () => {
      throw payloadTooLarge(limit);
    },
  })(c, async () => {
    if (METHODS_WITH_BODY.has(c.req.method) && c.req.raw.body && JSON_TYPE.test(c.req.header("content-type") ?? "") && jsonTextTooDeep(await c.req.text())) throw tooDeep();
    await next();
  });
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
