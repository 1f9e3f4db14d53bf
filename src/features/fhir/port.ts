// What the rest of the service (pipelines, agents, HL7 inbound, export, devices)
// needs from the FHIR store, as one narrow interface. The store implements it per
// organization; tests and test_mode use other implementations.

export type { Bundle, BundleEntry, Meta, Resource } from "../../platform/fhir-resource";
import type { Bundle, Resource } from "../../platform/fhir-resource";

export interface WriteResult {
  resource: Resource;
  /** created: new resource; updated: new version; existing: conditional create matched. */
  outcome: "created" | "updated" | "existing";
}

export interface FhirPort {
  /** Throws ApiError 404 (unknown) or 410 (deleted). */
  read(type: string, id: string): Promise<Resource>;
  /** A searchset Bundle; `query` is the URL query string of a FHIR search. */
  search(type: string, query: string): Promise<Bundle>;
  create(resource: Resource, options?: { ifNoneExist?: string }): Promise<WriteResult>;
  /** Update by id (create-on-update allowed); `ifMatch` is a version id. */
  update(resource: Resource & { id: string }, options?: { ifMatch?: string }): Promise<WriteResult>;
  /** Conditional update: `query` selects at most one resource of `resource.resourceType`. */
  conditionalUpdate(query: string, resource: Resource): Promise<WriteResult>;
  delete(type: string, id: string): Promise<void>;
  /** Executes a batch or transaction Bundle, answering the response Bundle. */
  batch(bundle: Bundle): Promise<Bundle>;
}

export interface ExportQuery {
  type: string;
  /** Exclusive lower bound on lastUpdated (the `_since` parameter). */
  since?: string;
  /** Inclusive upper bound: the export's transactionTime, so later writes stay out. */
  until: string;
  /** Opaque position returned by the previous page. */
  cursor?: string;
  limit: number;
  /** For Patient/Group-level export: only resources in these patients' compartments. */
  compartment?: { patients: string[] | "all" };
  /** `_typeFilter` search queries (`name=x&birthdate=ge2000`); a resource must match at least one. */
  filters?: string[];
  /**
   * `includeAssociatedData`: the page holds Provenance (`type`) targeting a resource this export
   * holds; since, compartment and each focal type's filters then select those targets, not the
   * Provenance. `latestOnly`: a Provenance only where it is its target's most recent one.
   */
  associated?: { latestOnly: boolean; focal: { type: string; filters?: string[] }[] };
}

export interface ExportPage {
  /** One resource's JSON text per entry. */
  lines: string[];
  /** Absent when the type is exhausted. */
  cursor?: string;
}

/** The store's reads for Bulk Data export (the export feature's only way to the FHIR tables). */
export interface FhirExportReader {
  /** One page of a type's resources as stored JSON text, those the store's access policy lets the principal export. */
  exportPage(query: ExportQuery): Promise<ExportPage>;
  /** Ids of the Patients a Group lists as active members; throws ApiError 404 for an unknown Group. */
  groupPatients(groupId: string): Promise<string[]>;
}
