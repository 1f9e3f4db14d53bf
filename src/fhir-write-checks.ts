// Checks implementation guides hold single writes to (part of the composition root;
// features/fhir/write-check.ts): MHD's Folder rules on a List written on its own. Every store
// applies them: they are part of FHIR_EXTENSIONS (src/fhir-extensions.ts).
import type { WriteCheck } from "./features/fhir/write-check";
import { MHD_WRITE_CHECKS } from "./standards/ihe/mhd/folder-update";

export const FHIR_WRITE_CHECKS: readonly WriteCheck[] = [...MHD_WRITE_CHECKS];
