// ITI-66 Find Document Lists and ITI-67 Find Document References: the Document Consumer SHALL
// send `patient` or `patient.identifier` and `status` (IHE MHD 4.2, ITI-66/67 §2:3.6x.4.1.2).
// The same endpoint is also the plain FHIR List and DocumentReference search, where neither is
// required, so the rule applies only to searches that are MHD queries:
// - a List search whose `code` asks for the MHD list types (submissionset, folder), which no
//   other List use carries: always;
// - every DocumentReference and List search of an organization that declared its FHIR base an
//   MHD Document Responder (`mhd_strict`, features/ihe): a DocumentReference query carries no
//   mark of being ITI-67, so only the organization can say its clients are MHD consumers.
// Such a search without them is refused with 400 instead of answering a query the profile
// forbids (e.g. every current document of every patient).
import type { SearchRefined, SearchRefinement } from "../../../features/fhir";
import { readIheSettings } from "../../../features/ihe";

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

/** The 400 for an MHD Find lacking what it requires, or undefined when it has it. */
function refusal(transaction: string, params: URLSearchParams): SearchRefined | undefined {
  const missing = missingMhdParameters(params);
  if (missing.length === 0) return undefined;
  return {
    respond: {
      status: 400,
      body: {
        resourceType: "OperationOutcome",
        issue: missing.map((what) => ({ severity: "error", code: "required", diagnostics: `${transaction} requires ${what}` })),
      },
    },
  };
}

export const mhdFindDocumentLists: SearchRefinement = {
  types: ["List"],
  async refine(params, store) {
    if (isMhdListQuery(params)) return refusal("ITI-66 Find Document Lists (code submissionset or folder)", params);
    return (await readIheSettings(store.data)).mhdStrict ? refusal("ITI-66 Find Document Lists (mhd_strict)", params) : undefined;
  },
};

export const mhdFindDocumentReferences: SearchRefinement = {
  types: ["DocumentReference"],
  async refine(params, store) {
    return (await readIheSettings(store.data)).mhdStrict ? refusal("ITI-67 Find Document References (mhd_strict)", params) : undefined;
  },
};

export const MHD_SEARCH_REFINEMENTS: readonly SearchRefinement[] = [mhdFindDocumentLists, mhdFindDocumentReferences];
