// Everything one organization's work runs on, as the features see it. The platform declares the
// org's data and placement; each feature adds the services it offers by declaration merging (the
// way Hono's ContextVariableMap grows), next to its implementation: `fhir` in features/fhir,
// `pipelines` in features/pipelines, and so on. Only the composition root (src/main/context.ts)
// builds one, so no feature imports another's wiring and none imports the root.
import type { Placement } from "./directory";
import type { Env } from "./env";
import type { ApiError } from "./errors";
import type { PublishedEvent } from "./events";
import type { OrgData } from "./org-data";

export interface OrgContext extends OrgData {
  readonly placement: Placement;
  /**
   * Hands the service's own events (a reading stored, an alert raised, an execution failed, a FHIR
   * resource changed: events.ts) to whoever delivers them out (customer webhooks). Never throws:
   * a failure to hand one over is logged, and the work that raised it stands.
   */
  publish(events: readonly PublishedEvent[]): Promise<void>;
}

/** How work outside a request (a Durable Object, an operator route, a public route) reaches an org's context. */
export interface OrgContexts {
  /** The org's context from the directory; 404 ORGANIZATION_NOT_FOUND when there is none. */
  forOrg(orgId: string): Promise<OrgContext>;
  /**
   * For a public route that names its organization in the path (webhooks, OAuth callbacks, uploads):
   * an unknown organization answers `refusal`, what a bad credential of that route answers, so the
   * answers never tell anyone which organization ids exist.
   */
  forPublicOrg(orgId: string, refusal: () => ApiError): Promise<OrgContext>;
  /** At a placement the caller holds (a move's source shard); `d1` as the caller opened it. */
  at(placement: Placement, d1?: D1Database): OrgContext;
}

/** The root's way of building contexts for a deployment (src/main/context.ts). */
export type OrgContextsOf = (env: Env) => OrgContexts;

declare module "hono" {
  interface ContextVariableMap {
    /** The request's org context, set after authentication (src/main/org-context.ts). */
    ctx: OrgContext;
    /** Contexts of other orgs (operator and public routes), set first on every request. */
    contexts: OrgContexts;
  }
}
