// Serves a single-page app from the Worker's static assets (wrangler.toml [assets], binding
// ASSETS, run_worker_first), so its answers pass the Worker's middleware (request id, the
// X-RateLimit-* headers of every response) and unknown paths are 404, not the app's page. A path
// the app routes answers its page (index.html); a path naming one of its files answers the file;
// anything else is the service's 404. The routes are the app's own list, in its router's pattern
// syntax (regexparam, as wouter matches them), so the two agree on every path.
import type { Context } from "hono";
import { parse } from "regexparam";
import { onNotFound } from "./error-handler";
import type { HttpEnv } from "./http-env";

export interface SpaAssetsOptions {
  /** The app's route patterns (e.g. "/pipelines/:id"). */
  routes: readonly string[];
  /** Path prefixes the app never answers (the API's): their unknown paths are 404 without an asset lookup. */
  notUnder: readonly string[];
}

/** A GET/HEAD handler for every path no route of the Worker took. */
export function spaAssets<E extends HttpEnv>({ routes, notUnder }: SpaAssetsOptions) {
  const patterns = routes.map((r) => parse(r).pattern);
  const isRoute = (path: string) => patterns.some((p) => p.test(path));
  return async (c: Context<E>): Promise<Response> => {
    const assets = (c.env as { ASSETS?: Fetcher }).ASSETS;
    const path = c.req.path;
    if (!assets || notUnder.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return onNotFound(c);
    const init = { method: c.req.method, headers: c.req.raw.headers };
    // The page at "/" is index.html (the assets' html_handling maps it).
    const res = await assets.fetch(isRoute(path) ? new Request(new URL("/", c.req.url), init) : new Request(c.req.url, init));
    if (res.status === 404) {
      await res.body?.cancel();
      return onNotFound(c);
    }
    return res;
  };
}
