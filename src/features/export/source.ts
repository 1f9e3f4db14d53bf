// Where an export reads resources from: the FHIR store implements this for an
// organization. Lines are the stored JSON text, so export never re-serializes.

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

export interface ExportSource {
  page(query: ExportQuery): Promise<ExportPage>;
  /** Ids of the Patients a Group lists as members; throws ApiError 404 for an unknown Group. */
  groupPatients(groupId: string): Promise<string[]>;
}
