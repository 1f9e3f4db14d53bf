// Whether a search would be answered, without running it: what the parser refuses (unknown
// types, too many values) and what building its SQL refuses (a date that is none, a quantity that
// is no number, a composite without its `$`). The same code a search runs, against no database:
// a generated query checked here is one the FHIR API takes (the copilot's generate/fhir-queries).
import { ApiError } from "../../../platform/errors";
import type { FhirDefinitions } from "../definitions";
import { Args } from "./args";
import { whereClause } from "./page";
import { type SearchRequest, parseSearch } from "./parse";

/** The parsed search (its `warnings`: parameters ignored); throws the 400 the FHIR API would answer. */
export function checkSearch(definitions: FhirDefinitions, type: string | undefined, query: string | URLSearchParams): SearchRequest {
  const req = parseSearch(definitions, type, query);
  whereClause(req, new Args("check", false));
  return req;
}

/** Why a strict search (an unknown parameter refused, not ignored) of `type` would be refused, or undefined when the API takes it. */
export function searchProblem(definitions: FhirDefinitions, type: string, query: string): string | undefined {
  try {
    whereClause(parseSearch(definitions, type, query, true), new Args("check", false));
    return undefined;
  } catch (e) {
    if (e instanceof ApiError) return e.message;
    throw e;
  }
}
