// The implementation guides' actors this server plays (part of the composition root;
// features/fhir/guide-actors.ts): the CapabilityStatement declares each one's instantiated
// CapabilityStatements and supported profiles.
import type { GuideActor } from "../features/fhir/guide-actors";
import { MHD_ACTORS } from "../standards/ihe/mhd/actors";
import { PDQM_ACTORS } from "../standards/ihe/pdqm/actors";
import { IPS_ACTORS } from "../standards/ips/actors";

export const FHIR_GUIDE_ACTORS: readonly GuideActor[] = [...MHD_ACTORS, ...PDQM_ACTORS, ...IPS_ACTORS];
