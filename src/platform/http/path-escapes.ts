// Refuses a path whose percent-escapes do not decode (a `%` without two hex digits after it, or
// escaped bytes that are not UTF-8: `/api/connectors/%zz/test`, `/api/api-keys/g%K`) with 400
// BAD_REQUEST in the path's error shape, for every route and before any of them: Hono leaves such
// a parameter as it came, and code that decodes it again (decodeURIComponent) throws URIError.
import { createMiddleware } from "hono/factory";
import { badRequest } from "../errors";
import type { HttpEnv } from "./http-env";

/** The raw path of `url` (escapes as sent), without query or fragment. */
function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

/** `value` percent-decoded, or undefined when one of its escapes does not decode. */
export function percentDecoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

export const wellFormedPath = createMiddleware<HttpEnv>(async (c, next) => {
  const path = rawPath(c.req.url);
  if (path.includes("%") && percentDecoded(path) === undefined) throw badRequest(`The path ${JSON.stringify(path.slice(0, 200))} has a malformed percent-escape: % must be followed by two hex digits, and the escaped bytes must be UTF-8`);
  await next();
});
