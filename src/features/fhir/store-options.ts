// How a FHIR store is built for one organization and principal (fhirStoreFor): what the
// implementation guides add, where its URLs point, who may see what, and when its audits flush.
import type { AccessPolicy } from "./access-policy";
import type { FhirChangeHook } from "./changes";
import type { FhirExtensions } from "./extensions";

export interface FhirStoreOptions {
  /** What implementation guides add (their SearchParameters and write checks, for the store). */
  extensions: FhirExtensions;
  /** Absolute base of the org's FHIR API (for fullUrl and links); defaults to a relative base. */
  baseUrl?: string;
  /** Lets background indexing of the pending audit log finish after the response (ExecutionContext.waitUntil). */
  waitUntil?: (p: Promise<unknown>) => void;
  /** Who may read, search, write and export what (access-policy.ts); permits everything by default. */
  policy?: AccessPolicy;
  /** Purposes of use the request declared (v3 ActReason codes, the X-Purpose-Of-Use header): the policy decides with them. */
  purposeOfUse?: string[];
  /**
   * Holds the background indexing of the pending audit log until `releaseAuditFlush()`: work that
   * writes more after its FHIR writes (device ingest: the time series, the alert rules) would
   * otherwise wait behind the flush its own writes started on the same database.
   */
  holdAuditFlush?: boolean;
  /**
   * Called after every commit that stored versions (changes.ts: creates, updates, patches, deletes,
   * single or in a batch or transaction; never reads), with what it stored. It runs before the
   * write answers; whatever it throws is logged and the write stands.
   */
  onChange?: FhirChangeHook;
}
