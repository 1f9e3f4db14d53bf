// The SearchParameters MHD adds (IHE MHD 4.2 SearchParameter resources): for ITI-67,
// DocumentReference `creation`, the attachment's creation date; for ITI-66, List
// `designationType` (the SubmissionSet's contentType / the Folder's codeList, the
// ihe-designationType extension) and `sourceId` (the SubmissionSet's source, the ihe-sourceId
// extension). List `source` (and source.given/source.family by chaining) is R4's own.
import type { SearchParameterResource } from "../../../features/fhir";

const SP = "https://profiles.ihe.net/ITI/MHD/SearchParameter/";
export const DESIGNATION_TYPE = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-designationType";
export const SOURCE_ID = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-sourceId";

export const MHD_SEARCH_PARAMETERS: readonly SearchParameterResource[] = [
  { resourceType: "SearchParameter", url: `${SP}DocumentReference-Creation`, code: "creation", base: ["DocumentReference"], type: "date", expression: "DocumentReference.content.attachment.creation" },
  { resourceType: "SearchParameter", url: `${SP}List-DesignationType`, code: "designationType", base: ["List"], type: "token", expression: `List.extension('${DESIGNATION_TYPE}').value` },
  { resourceType: "SearchParameter", url: `${SP}List-SourceId`, code: "sourceId", base: ["List"], type: "token", expression: `List.extension('${SOURCE_ID}').value` },
];
