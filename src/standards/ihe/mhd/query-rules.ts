// ITI-66 Find Document Lists: the Document Consumer SHALL send `patient` or `patient.identifier`
// and `status` (IHE MHD 4.2, ITI-66 §2:3.66.4.1.2). The same endpoint is also the plain FHIR
// List search, where neither is required, so the rule applies only to a search that is an MHD
// query by its own terms: one whose `code` asks for the MHD list types (submissionset, folder),
// which no other List use carries. Such a search without them is refused with 400 instead of
// answering a query the profile forbids (e.g. every SubmissionSet of every patient).
import type { SearchRefinement } from "../../../features/fhir/search-refinement";

const MHD_LIST_TYPES = new Set(["submissionset", "folder"]);

/** The parameter names present, without modifiers (`patient:Patient.identifier` → `patient.identifier`). */
function names(params: URLSearchParams): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of params) if (v !== "") out.add(k.replace(/:[A-Za-z-]+/g, ""));
  return out;
}

/** Whether a List search asks for MHD list types (`code=submissionset`, `code=…MHDlistTypes|folder`, OR-lists). */
export function isMhdListQuery(params: URLSearchParams): boolean {
  return params
    .getAll("code")
    .flatMap((v) => v.split(","))
    .some((token) => MHD_LIST_TYPES.has(token.slice(token.lastIndexOf("|") + 1)));
}

/** What an MHD Find lacks of its required parameters (empty when it has them). */
export function missingMhdParameters(params: URLSearchParams): string[] {
  const present = names(params);
  const missing: string[] = [];
  if (!present.has("patient") && !present.has("patient.identifier")) missing.push("patient or patient.identifier");
  if (!present.has("status")) missing.push("status");
  return missing;
}

export const mhdFindDocumentLists: SearchRefinement = {
  types: ["List"],
  async refine(params) {
    if (!isMhdListQuery(params)) return undefined;
    const missing = missingMhdParameters(params);
    if (missing.length === 0) return undefined;
    return {
      respond: {
        status: 400,
        body: {
          resourceType: "OperationOutcome",
          issue: missing.map((what) => ({
            severity: "error",
            code: "required",
            diagnostics: `ITI-66 Find Document Lists (code submissionset or folder) requires ${what}`,
          })),
        },
      },
    };
  },
};

export const MHD_SEARCH_REFINEMENTS: readonly SearchRefinement[] = [mhdFindDocumentLists];
