// Checks implementation guides run on a transaction or batch before it is stored (part of the
// composition root; features/fhir/bundle-check.ts): MHD's ITI-65 Provide Document Bundle rules,
// and its Folder rules on a plain transaction that writes Folders.
import type { BundleCheck } from "../features/fhir/bundle-check";
import { folderTransactionCheck } from "../standards/ihe/mhd/folder-update";
import { MHD_BUNDLE_CHECKS } from "../standards/ihe/mhd/provide-bundle";

export const FHIR_BUNDLE_CHECKS: readonly BundleCheck[] = [...MHD_BUNDLE_CHECKS, folderTransactionCheck];
