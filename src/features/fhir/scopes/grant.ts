// What a SMART grant permits: an interaction on a resource type (and the resource, when there is
// one) is permitted when any of the grant's resource scopes covers it (OR). A scope covers it when
// it names the type (or *), holds the interaction's permission letter, meets its granular
// conditions on the resource, and, for `patient/` scopes, the resource is in the launch
// patient's compartment. `user/` and `system/` scopes are bound to no compartment: the role and
// the other policies (consent) still narrow them.
import type { FhirGrant } from "../../../platform/principal";
import { type AccessDecision, PERMIT, patientsOf } from "../access-policy";
import type { Resource } from "../port";
import { type Permission, type ResourceScope, resourceScopesOf } from "./syntax";
import { meetsConditions } from "./token-match";

export type ScopeInteraction = "read" | "vread" | "search" | "history" | "create" | "update" | "delete" | "operation";

/** SMART v2's letters: reads of one resource (vread, its history, operations on it) are `r`, searches `s`. */
const PERMISSION_OF: Readonly<Record<ScopeInteraction, Permission>> = {
  read: "r",
  vread: "r",
  history: "r",
  operation: "r",
  search: "s",
  create: "c",
  update: "u",
  delete: "d",
};

export interface ScopeRequest {
  interaction: ScopeInteraction;
  resourceType: string;
  /** The resource read, written or replaced; without it, granular and `patient/` scopes cannot cover the request. */
  resource?: Resource;
  /** The patient the request is about, when known without the resource (Patient/$everything). */
  patient?: string;
}

/** A grant parsed once: its resource scopes (malformed ones dropped: they grant nothing) and launch patient. */
export interface ScopeGrant {
  scopes: ResourceScope[];
  patient?: string;
}

export function scopeGrantOf(grant: FhirGrant): ScopeGrant {
  return { scopes: resourceScopesOf(grant.scopes), ...(grant.patient !== undefined ? { patient: grant.patient } : {}) };
}

export function scopesPermit(grant: ScopeGrant, request: ScopeRequest): AccessDecision {
  const named = namedScopes(grant, request);
  if (named.some((s) => covers(grant, s, request))) return PERMIT;
  if (!named.length) return notGranted(grant, request);
  const what = request.resource?.id ? `${request.resourceType}/${request.resource.id}` : `this ${request.resourceType}`;
  return { permit: false, reason: `${what} is outside what the token's scopes grant (${named.map((s) => s.text).join(" ")})` };
}

/**
 * Whether any scope names the type and the interaction's letter, whatever its conditions and
 * compartment: a search is refused before it runs when none does (its results are then thinned
 * by scopesPermit, one by one).
 */
export function scopesPermitType(grant: ScopeGrant, request: Omit<ScopeRequest, "resource" | "patient">): AccessDecision {
  return namedScopes(grant, request).length ? PERMIT : notGranted(grant, request);
}

function namedScopes(grant: ScopeGrant, request: Pick<ScopeRequest, "interaction" | "resourceType">): ResourceScope[] {
  const permission = PERMISSION_OF[request.interaction];
  return grant.scopes.filter((s) => (s.resourceType === "*" || s.resourceType === request.resourceType) && s.permissions.has(permission));
}

function notGranted(grant: ScopeGrant, request: Pick<ScopeRequest, "interaction" | "resourceType">): AccessDecision {
  const context = (["patient", "system"] as const).find((c) => grant.scopes.some((s) => s.context === c)) ?? "user";
  return { permit: false, reason: `the token's scopes do not grant ${context}/${request.resourceType}.${PERMISSION_OF[request.interaction]}` };
}

function covers(grant: ScopeGrant, scope: ResourceScope, request: ScopeRequest): boolean {
  if (scope.conditions.length && !(request.resource && meetsConditions(request.resource, scope.conditions))) return false;
  return scope.context !== "patient" || inLaunchCompartment(grant.patient, request);
}

/** The launch patient's compartment: the Patient itself and what its compartment's references reach. */
function inLaunchCompartment(patient: string | undefined, request: ScopeRequest): boolean {
  if (patient === undefined) return false;
  if (request.patient !== undefined) return request.patient === patient;
  return request.resource !== undefined && patientsOf(request.resource).includes(patient);
}
