// Factory for routers: an OpenAPIHono whose validation failures become our
// VALIDATION_FAILED error with field-level details, matching with Hono's TrieRouter.
//
// Why the TrieRouter, named here: Hono's default SmartRouter first offers every route to its
// RegExpRouter, which refuses a literal segment beside a parameter at the same place in a path.
// The FHIR REST URLs need exactly that (`metadata`, `_history`, `$export`, `bulkdata` beside
// `:type`; `_search`, `$match` beside `:id`), and FHIR fixes those URLs, so the RegExpRouter can
// never take this app (docs/fhir-hot-path.md, session 10, lists the routes it refused). The
// SmartRouter found that out again in every new isolate, on its first request (the app's ~590
// routes: 7-9 ms to the first match with the attempt, 4-6 ms without, in Node); naming the router
// skips the attempt and matches the same way.
//
// Every route that changes state declares its audit (route-audit.ts) in its `audit` field: the
// factory's `openapi` refuses one without, puts the declaration first in the route's chain and
// keeps it out of the OpenAPI document.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import type { ZodError } from "zod";
import { validationFailed } from "../errors";
import type { HttpEnv } from "./http-env";
import { type RouteAudit, changesState, declareAudit } from "./route-audit";

export function zodDetails(error: ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({
    path: i.path.length ? i.path.map(String).join(".") : "(root)",
    message: i.message,
  }));
}

/** A router for the environment `E` (the app passes its own, which extends HttpEnv). */
export function createRouter<E extends HttpEnv>(): OpenAPIHono<E> {
  const router = new OpenAPIHono<E>({
    router: new TrieRouter(),
    defaultHook: (result) => {
      if (!result.success) {
        throw validationFailed(`Invalid ${result.target}`, zodDetails(result.error));
      }
    },
  });
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, ...rest: unknown[]) => (register as (...args: unknown[]) => unknown)(withDeclaredAudit<E>(route), ...rest)) as typeof register;
  return router;
}

/** The route as OpenAPIHono takes it: its audit declaration first in its middleware, not in the document. */
function withDeclaredAudit<E extends HttpEnv>(route: RouteConfig & { audit?: RouteAudit }): RouteConfig {
  const { audit, ...config } = route;
  if (!audit) {
    if (changesState(route.method)) throw new Error(`${route.method.toUpperCase()} ${route.path} declares no audit: give it \`audit\` (features/audit/declarations.ts)`);
    return config;
  }
  const middleware = config.middleware === undefined ? [] : Array.isArray(config.middleware) ? config.middleware : [config.middleware];
  return { ...config, middleware: [declareAudit<E>(audit) as MiddlewareHandler, ...middleware] };
}
