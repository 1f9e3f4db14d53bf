// Checks implementation guides hold single writes to (part of the composition root;
// features/fhir/write-check.ts): MHD's Folder rules on a List written on its own. Registered
// before any store is built (context.ts imports this module), like the guides' SearchParameters.
import { addWriteChecks } from "../features/fhir/write-check";
import { MHD_WRITE_CHECKS } from "../standards/ihe/mhd/folder-update";

addWriteChecks(MHD_WRITE_CHECKS);
