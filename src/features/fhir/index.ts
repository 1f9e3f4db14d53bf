// Entry point of the FHIR store for the rest of the service: a FhirService (the interaction
// dispatcher) bound to one organization and principal, built with what the implementation
// guides add (FhirExtensions, which the composition root builds once), audited like any API
// request; and the audit trail, for AuditEvents other features record.
import type { OrgData } from "../../platform/org-data";
import type { Principal } from "../tenancy";
import { AuditTrail } from "./audit-trail";
import { InteractionDispatcher } from "./dispatcher";
import type { FhirService } from "./service";
import type { FhirStoreOptions } from "./store-options";
import { patientCompartmentParams } from "./definitions";

export type { FhirService } from "./service";
export type { FhirStoreOptions } from "./store-options";
export type { FhirChange, FhirChangeHook } from "./changes";
export type { WriteCheck } from "./write-check";
export type { BundleCheck } from "./bundle-check";
export type { GuideActor } from "./guide-actors";
export type { AuditedInteraction, GuideAudit } from "./guide-audit";
export type { RetrieveCheck } from "./retrieve-check";
export type { SearchRefined, SearchRefinement } from "./search-refinement";
export { type FhirExtensions, NO_FHIR_EXTENSIONS } from "./extensions";
export { OperationRegistry } from "./operations/registry";
export type { Bundle, BundleEntry, ExportPage, ExportQuery, FhirExportReader, FhirPort, Meta, Resource, WriteResult } from "./port";
export { permitAll, type AccessPolicy, type AccessAuditNote, type AccessDecision, type AccessRequest, PERMIT, patientsOf } from "./access-policy";
export { allOf } from "./access-all-of";
export { smartScopePolicy } from "./scopes/policy";
export { parseScope, scopeError, type ResourceScope, type ScopeParse } from "./scopes/syntax";
export { type AnyOperation, defineOperation, type FhirOperation, type OperationCall, type OperationResponse } from "./operations/operation";
export { MAX_AUDIT_QUERY_CHARS } from "./audit";
export { evaluateBudgeted, fhirpathSyntaxError } from "./fhirpath";
/** Whether a name is a resource type of the store's definitions (the copilot's generated mappings). */
export { isResourceType } from "./definitions";
/** Whether resources of a type can lie in a patient's compartment (the Patient itself included). */
export const inPatientCompartment = (type: string): boolean => type === "Patient" || patientCompartmentParams(type).length > 0;
/** R4's search parameters by type and code (subscriptions evaluate criteria on changed resources with them). */
export { R4_DEFINITIONS, type SearchParamDef, type SearchParameterResource } from "./definitions";
/** A FHIR search evaluated on one resource in memory (subscriptions' criteria, access policies' rules). */
export { type Criteria, matchesCriteria, parseCriteria } from "./criteria";
export { searchProblem } from "./search/check";
/** Element paths of a resource type against R4's definitions (what an access policy hides). */
export { type ElementStep, propertiesOf, resolveElementPath } from "./element-paths";
export type { ScopeBranch, SearchParamUse, SearchScope } from "./access-policy";

export function fhirStoreFor(data: OrgData, principal: Principal, options: FhirStoreOptions): FhirService {
  return new InteractionDispatcher(data, principal, options);
}

/**
 * The organization's AuditEvent trail as `principal` records to it: an event another module built
 * (a management action), and the retention purge. AuditEvents are indexed by R4's parameters
 * alone, so it needs no FhirExtensions.
 */
export function fhirAuditTrail(data: OrgData, principal: Principal): Pick<AuditTrail, "write" | "purge"> {
  return new AuditTrail(data, principal);
}
