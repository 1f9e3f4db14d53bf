// What implementation guides add to FHIR search (part of the composition root): their
// SearchParameter resources, which the store indexes and serves, and their refinements of a
// type's search results (features/fhir/search-refinement.ts), which the FHIR routes apply.
// Both reach the store and routes in FHIR_EXTENSIONS (src/fhir-extensions.ts).
import type { SearchParameterResource } from "./features/fhir/definitions";
import type { SearchRefinement } from "./features/fhir/search-refinement";
import { MHD_SEARCH_REFINEMENTS } from "./standards/ihe/mhd/query-rules";
import { MHD_SEARCH_PARAMETERS } from "./standards/ihe/mhd/search-parameters";
import { PDQM_SEARCH_PARAMETERS } from "./standards/ihe/pdqm/search-parameters";
import { PDQM_SEARCH_REFINEMENTS } from "./standards/ihe/pdqm/search-refinements";

export const FHIR_SEARCH_PARAMETERS: readonly SearchParameterResource[] = [...PDQM_SEARCH_PARAMETERS, ...MHD_SEARCH_PARAMETERS];

export const FHIR_SEARCH_REFINEMENTS: readonly SearchRefinement[] = [...PDQM_SEARCH_REFINEMENTS, ...MHD_SEARCH_REFINEMENTS];
