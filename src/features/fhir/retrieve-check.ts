// The hook implementation guides use to refuse serving a Binary's raw document (the composition
// root lists them; routes/fhir.ts runs them on a raw Binary read, before any byte is sent):
// MHD's ITI-68 410 Gone for superseded documents when the organization's policy says so.
import type { ApiError } from "../../platform/errors";
import type { Resource } from "./port";
import type { FhirService } from "./service";

export interface RetrieveCheck {
  /** Undefined when the document may be served; otherwise the error to answer instead (an OperationOutcome under /fhir). */
  check(binary: Resource, store: FhirService): Promise<ApiError | undefined>;
}

/** Throws the first refusal of the checks. */
export async function checkRetrieval(checks: readonly RetrieveCheck[], binary: Resource, store: FhirService): Promise<void> {
  for (const c of checks) {
    const refusal = await c.check(binary, store);
    if (refusal) throw refusal;
  }
}
