// Search parameters implementation guides add to the FHIR store (part of the composition root):
// each standard declares its SearchParameter resources; the store indexes and serves them.
import { addSearchParameters } from "./features/fhir/definitions";
import { PDQM_SEARCH_PARAMETERS } from "./standards/ihe/pdqm/search-parameters";

addSearchParameters([...PDQM_SEARCH_PARAMETERS]);
