// Checks implementation guides run before a Binary's raw document is served (part of the
// composition root; features/fhir/retrieve-check.ts): MHD's ITI-68 410 for superseded documents.
import type { RetrieveCheck } from "../features/fhir/retrieve-check";
import { MHD_RETRIEVE_CHECKS } from "../standards/ihe/mhd/retrieve-policy";

export const FHIR_RETRIEVE_CHECKS: readonly RetrieveCheck[] = [...MHD_RETRIEVE_CHECKS];
