// The store's access-policy hook: who may read, search, write and export which resources.
// Every read, search, write and export path of the store consults the policy it was built
// with (FhirStoreOptions.policy); the default permits everything. Consent enforcement plugs
// in here: a policy that reads the organization's Consent resources and denies or filters
// what a patient's consent excludes (docs/fhir-store.md, "Access policy").
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
