// What implementation guides add to the FHIR store and its routes, as one value the composition
// root builds from its plug-ins (src/main/catalogs.ts) and hands to the store (fhirStoreFor) and
// the routers (fhirRouter, fhirPublicRoutes): nothing registers into module state at import time.
import type { BundleCheck } from "./bundle-check";
import { type FhirDefinitions, type SearchParameterResource, fhirDefinitions } from "./definitions";
import type { GuideActor } from "./guide-actors";
import type { GuideAudit } from "./guide-audit";
import { OperationRegistry } from "./operations/registry";
import type { RetrieveCheck } from "./retrieve-check";
import type { SearchRefinement } from "./search-refinement";
import type { WriteCheck } from "./write-check";

export interface FhirExtensions {
  /** SearchParameter resources beyond R4's: indexed on every write, searchable, listed in the CapabilityStatement (definitions.ts). */
  readonly searchParameters: readonly SearchParameterResource[];
  /** Refinements of type searches (search-refinement.ts), applied by the routes. */
  readonly searchRefinements: readonly SearchRefinement[];
  /** Checks of single writes (write-check.ts), applied by the store. */
  readonly writeChecks: readonly WriteCheck[];
  /** Checks of a transaction or batch before it runs (bundle-check.ts), applied by the routes. */
  readonly bundleChecks: readonly BundleCheck[];
  /** Checks before a Binary's raw document is served (retrieve-check.ts), applied by the routes. */
  readonly retrieveChecks: readonly RetrieveCheck[];
  /** The guides' own AuditEvents for their transactions (guide-audit.ts), recorded by the routes. */
  readonly guideAudits: readonly GuideAudit[];
  /** The guides' actors the CapabilityStatement declares (guide-actors.ts). */
  readonly guideActors: readonly GuideActor[];
  /** The FHIR operations served, listed and documented (operations/registry.ts). */
  readonly operations: OperationRegistry;
}

/** R4's store and nothing more: no guide's parameters, checks, audits or operations. */
export const NO_FHIR_EXTENSIONS: FhirExtensions = {
  searchParameters: [],
  searchRefinements: [],
  writeChecks: [],
  bundleChecks: [],
  retrieveChecks: [],
  guideAudits: [],
  guideActors: [],
  operations: new OperationRegistry([]),
};

/** The search parameters a store built with `extensions` serves (built once per list). */
export const definitionsOf = (extensions: FhirExtensions): FhirDefinitions => fhirDefinitions(extensions.searchParameters);
