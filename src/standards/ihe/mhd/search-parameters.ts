// The SearchParameter MHD adds for ITI-67: DocumentReference `creation`, the attachment's
// creation date (IHE SearchParameter DocumentReference-Creation).
import type { SearchParameterResource } from "../../../features/fhir/definitions";

export const MHD_SEARCH_PARAMETERS: readonly SearchParameterResource[] = [
  {
    resourceType: "SearchParameter",
    url: "https://profiles.ihe.net/ITI/MHD/SearchParameter/DocumentReference-Creation",
    code: "creation",
    base: ["DocumentReference"],
    type: "date",
    expression: "DocumentReference.content.attachment.creation",
  },
];
