// Checks implementation guides run on a transaction or batch before it is stored (part of the
// composition root; features/fhir/bundle-check.ts): MHD's ITI-65 Provide Document Bundle rules.
import type { BundleCheck } from "./features/fhir/bundle-check";
import { MHD_BUNDLE_CHECKS } from "./standards/ihe/mhd/provide-bundle";

export const FHIR_BUNDLE_CHECKS: readonly BundleCheck[] = [...MHD_BUNDLE_CHECKS];
