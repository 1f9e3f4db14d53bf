// The PDQm Patient Demographics Supplier, for the CapabilityStatement (ITI-78 on the store's
// Patient search, ITI-119 $match: operations.ts).
import type { GuideActor } from "../../../features/fhir";
import { PDQM_SUPPLIER } from "./operations";

export const PDQM_ACTORS: readonly GuideActor[] = [
  {
    name: "IHE PDQm Patient Demographics Supplier (Match option)",
    instantiates: [PDQM_SUPPLIER],
    supportedProfile: { Patient: ["https://profiles.ihe.net/ITI/PDQm/StructureDefinition/IHE.PDQm.Patient"] },
    transactions: ["ITI-78 Mobile Patient Demographics Query", "ITI-119 Patient Demographics Match"],
  },
];
