// The SearchParameters PDQm adds to Patient (ITI-78): the mother's maiden name, from the IHE
// PDQm IG's SearchParameter-PDQm-MothersMaidenName (the core patient-mothersMaidenName extension).
import type { SearchParameterResource } from "../../../features/fhir";

export const PDQM_SEARCH_PARAMETERS: readonly SearchParameterResource[] = [
  {
    resourceType: "SearchParameter",
    url: "https://profiles.ihe.net/ITI/PDQm/SearchParameter/PDQm-MothersMaidenName",
    code: "mothersMaidenName",
    base: ["Patient"],
    type: "string",
    expression: "Patient.extension('http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName').value",
  },
];
