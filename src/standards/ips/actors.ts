// The IPS Server, for the CapabilityStatement: $summary (operation.ts) produces the IPS document
// Bundle and its Composition.
import type { GuideActor } from "../../features/fhir";
import { IPS_BUNDLE_PROFILE, IPS_COMPOSITION_PROFILE } from "./document";

export const IPS_SERVER = "http://hl7.org/fhir/uv/ips/CapabilityStatement/ips-server";

export const IPS_ACTORS: readonly GuideActor[] = [
  {
    name: "HL7 IPS Server",
    instantiates: [IPS_SERVER],
    supportedProfile: { Bundle: [IPS_BUNDLE_PROFILE], Composition: [IPS_COMPOSITION_PROFILE] },
    transactions: ["Patient/$summary"],
  },
];
