// Rejects bodies over MAX_BODY_BYTES (413) and non-JSON bodies on JSON routes (415),
// before any handler reads them.
import { createMiddleware } from "hono/factory";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { payloadTooLarge, unsupportedMediaType } from "../errors";
import type { HttpEnv } from "./http-env";
import { settingsOf } from "../settings";

const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

export function maxBodyBytes(raw: string | undefined): number {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_BODY_BYTES;
}

export const bodyLimit = createMiddleware<HttpEnv>(async (c, next) => {
  const limit = maxBodyBytes(settingsOf(c.env).MAX_BODY_BYTES);
  return honoBodyLimit({
    maxSize: limit,
    onError: () => {
      throw payloadTooLarge(limit);
    },
  })(c, next);
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
