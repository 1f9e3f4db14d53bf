// Everything implementation guides add to the FHIR store and its routes, as the one value the
// composition root hands them (features/fhir/extensions.ts): built here once from the lists in
// src/fhir-*.ts, passed to every store (context.ts, service-wiring.ts) and to the FHIR routers (app.ts).
import type { FhirExtensions } from "./features/fhir";
import { FHIR_BUNDLE_CHECKS } from "./fhir-bundle-checks";
import { FHIR_GUIDE_ACTORS } from "./fhir-guide-actors";
import { FHIR_GUIDE_AUDITS } from "./fhir-guide-audits";
import { fhirOperationRegistry } from "./fhir-operations";
import { FHIR_RETRIEVE_CHECKS } from "./fhir-retrieve-checks";
import { FHIR_SEARCH_PARAMETERS, FHIR_SEARCH_REFINEMENTS } from "./fhir-search-parameters";
import { FHIR_WRITE_CHECKS } from "./fhir-write-checks";

export const FHIR_EXTENSIONS: FhirExtensions = {
  searchParameters: FHIR_SEARCH_PARAMETERS,
  searchRefinements: FHIR_SEARCH_REFINEMENTS,
  writeChecks: FHIR_WRITE_CHECKS,
  bundleChecks: FHIR_BUNDLE_CHECKS,
  retrieveChecks: FHIR_RETRIEVE_CHECKS,
  guideAudits: FHIR_GUIDE_AUDITS,
  guideActors: FHIR_GUIDE_ACTORS,
  operations: fhirOperationRegistry(),
};
