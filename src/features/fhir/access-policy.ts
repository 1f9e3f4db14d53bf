// The store's access-policy hook: who may read, search, write and export which resources.
// Every read, search, write and export path of the store consults the policy it was built
// with (FhirStoreOptions.policy); the default permits everything. Consent enforcement plugs
// in here: a policy that reads the organization's Consent resources and denies or filters
// what a patient's consent excludes, a token's SMART scopes and an access policy assigned to the
// credential narrow what it reaches (docs/fhir-store.md, "Access policy"). Beyond deciding and
// filtering, a policy may narrow a search in its query (searchScope, so pages and totals hold
// only what it shows), hide fields from what is returned (redact) and keep them as stored
// when the principal writes (restore).
import type { Principal } from "../tenancy";
import { patientCompartmentOf } from "./index-extract";
import type { Resource } from "./port";

export type AccessAction = "read" | "search" | "create" | "update" | "delete" | "export";

export interface AccessRequest {
  principal: Principal;
  action: AccessAction;
  resourceType: string;
  /** The resource read, the version a write would store, or the current version a write replaces or deletes. */
  resource?: Resource;
  /** The patient whose record the request is about, when known without the resource (Patient/$everything). */
  patient?: string;
  /** A search judged before it runs: the parameters it filters, sorts and includes by (a chain's and a _has' on their own types). */
  searchParams?: readonly SearchParamUse[];
}

/** A search parameter a search uses, on the type it belongs to. */
export interface SearchParamUse {
  resourceType: string;
  code: string;
  /** Its FHIRPath expression (what elements of the resource it reads). */
  expression: string;
}

/**
 * What a search may match, as a condition the store adds to its query (so its pages and totals
 * hold only what the policy shows): a resource matches when any branch admits it.
 */
export interface SearchScope {
  anyOf: readonly ScopeBranch[];
}

/** A branch admits a resource that is of its type, matches its query and lies in one of its patients' compartments (each when given). */
export interface ScopeBranch {
  /** Absent: any type. */
  resourceType?: string;
  /** A search query of `resourceType` (`category=vital-signs`), parsed by the store as a strict search. */
  query?: string;
  /** Patient ids: the resource is in one of their compartments (a Patient is in its own). */
  patients?: readonly string[];
}

export type AccessDecision = { permit: true } | { permit: false; reason: string };

/** What a policy's decisions rested on, recorded in the interaction's AuditEvent. */
export interface AccessAuditNote {
  /** The policy resources that decided (e.g. "Consent/c1"): what withheld, or what break-glass overrode. */
  basis: string[];
  /** Purposes of use the request declared (v3 ActReason codes: TREAT, ETREAT, BTG...). */
  purposes: string[];
}

export interface AccessPolicy {
  /** True when the policy never denies: the store then skips checks and filters (today's fast paths). */
  readonly permitsAll?: boolean;
  /** What the decisions so far rested on, for the AuditEvent of the interaction (none: nothing to add). */
  auditNote?(): AccessAuditNote | undefined;
  check(request: AccessRequest): AccessDecision | Promise<AccessDecision>;
  /**
   * The items among results of `action` (search matches and includes, history, $everything,
   * export pages) the principal may see, in order. `resourceOf` parses an item on demand, so
   * a policy that lets everything through costs export no parse.
   */
  filter<T>(principal: Principal, action: AccessAction, items: T[], resourceOf: (item: T) => Resource): T[] | Promise<T[]>;
  /**
   * Conditions a search of `types` (one for a type search, those of `_type`, none for every type)
   * must meet in its query, each of them (AND); none or undefined: the search runs as asked and
   * `filter` alone thins its results. What the scopes admit should be what `filter` keeps, or a
   * superset of it (pages then run short where `filter` drops more).
   */
  searchScope?(principal: Principal, types: readonly string[]): readonly SearchScope[] | undefined | Promise<readonly SearchScope[] | undefined>;
  /** What the principal is shown of a resource it may see (a copy without the fields the policy hides; the resource itself when none). Never what is stored. */
  redact?(principal: Principal, resource: Resource): Resource | Promise<Resource>;
  /**
   * The version a write stores, from the body the principal sent and the version it replaces
   * (none for a create): fields the principal may not see or change are kept as stored.
   */
  restore?(principal: Principal, written: Resource, current: Resource | undefined): Resource | Promise<Resource>;
}

export const PERMIT: AccessDecision = { permit: true };

/** The default: every principal may do everything its role and scopes allow (checked before the store). */
export const permitAll: AccessPolicy = {
  permitsAll: true,
  check: () => PERMIT,
  filter: (_principal, _action, items) => items,
};

/** The patients whose compartment holds the resource (the Patient itself included). */
export function patientsOf(resource: Resource): string[] {
  return patientCompartmentOf(resource);
}
