// Every route that can change state says where it is defined how the audit trail records it: an
// OpenAPI route in its `audit` field (the router factory, router.ts, refuses a POST, PUT, PATCH or
// DELETE without one), a plain route (the FHIR REST interactions) by a `declareAudit(...)`
// handler first in its chain. The platform only carries the declaration: it marks the route's
// handler with it (so a test can list every route's declaration) and, when the route runs, puts
// it and the route's path parameters on the request (`routeAudit`), where the audit feature
// (features/audit) reads it once the route has answered.
import type { Env as HonoEnv, MiddlewareHandler } from "hono";

declare module "hono" {
  interface ContextVariableMap {
    /** The audit declaration of the route that answered, set when it starts. */
    routeAudit?: DeclaredRouteAudit;
  }
}

/** A route's audit declaration; features/audit (declarations.ts) makes them and gives them meaning. */
export interface RouteAudit {
  readonly kind: string;
}

/** What the route that answered declared, with its path parameters (decoded). */
export interface DeclaredRouteAudit {
  audit: RouteAudit;
  params: Record<string, string>;
}

const DECLARED = Symbol("route audit");
type Marked = MiddlewareHandler & { [DECLARED]?: RouteAudit };

/** The handler that declares `audit` for the route it starts: put it first, before the permission check. */
export function declareAudit<E extends HonoEnv = HonoEnv>(audit: RouteAudit): MiddlewareHandler<E> {
  const declare: MiddlewareHandler<E> = async (c, next) => {
    c.set("routeAudit", { audit, params: c.req.param() as Record<string, string> });
    await next();
  };
  return Object.assign(declare, { [DECLARED]: audit });
}

/** The declaration a route handler carries (app.routes lists each handler of each route). */
export function declaredAuditOf(handler: unknown): RouteAudit | undefined {
  return (handler as Marked | undefined)?.[DECLARED];
}

/** Methods that only read: a route by another method changes state and must declare its audit. */
const READS = new Set(["get", "head", "options"]);

export const changesState = (method: string) => !READS.has(method.toLowerCase());
