// The FHIR store's public surface for one organization and principal: every interaction (CRUD,
// vread, history, search, patch, bundles, operations) with versioning, preconditions and an
// AuditEvent per interaction, and what other modules need beside them (the audit trail, export
// pages). The interaction dispatcher (dispatcher.ts) implements it; the HTTP routes, Bundle entries,
// the implementation guides' hooks and other features (FhirPort) all sit on it. Types only, so
// every hook can name the store without importing it.
import type { OrgData } from "../../platform/org-data";
import type { Principal } from "../tenancy";
import type { AuditInput } from "./audit";
import type { Bundle, FhirExportReader, FhirPort, Resource, WriteResult } from "./port";
import type { SearchRequest } from "./search/parse";
import type { StoredVersion } from "./storage/resource-store";

export interface UpdateOptions {
  ifMatch?: string;
}

/** A part of the compartment read cut short: one type's members, or (no type) the whole compartment's. */
export interface CompartmentShortfall {
  type?: string;
  /** Members read: the most recently updated. */
  included: number;
  /** Live members there are. */
  total: number;
}

export interface EverythingOptions {
  /** Only these types of the compartment (the Patient's own type included if wanted), each read up to `perType`. */
  types?: readonly string[];
  /** At most this many members of each type in `types` (EVERYTHING_LIMIT by default). */
  perType?: number;
}

export interface PatientEverything {
  /** The searchset: members, what they reference, and an OperationOutcome entry when a read was cut short. */
  bundle: Bundle;
  incomplete: CompartmentShortfall[];
}

export interface FhirService extends FhirPort, FhirExportReader {
  /** The organization's data: every statement of this store runs on its shard. */
  readonly data: OrgData;
  readonly principal: Principal;
  /** Absolute base of the org's FHIR API (fullUrl and links), without a trailing slash. */
  readonly baseUrl: string;

  // ---- reads
  /** A read, then its AuditEvent handed to the audit queue: no D1 write on the way. */
  read(type: string, id: string): Promise<Resource>;
  vread(type: string, id: string, versionId: string): Promise<Resource>;
  search(type: string | undefined, query: string | URLSearchParams, options?: { strict?: boolean }): Promise<Bundle>;
  history(scope: { type?: string; id?: string }, query?: string | URLSearchParams): Promise<Bundle>;
  /** Ids of the resources a conditional URL selects (strict: a typo must not match everything). */
  matchIds(type: string, query: string, limit?: number): Promise<string[]>;
  /** The current versions a conditional URL selects (never deleted ones). */
  matches(type: string, query: string, limit?: number): Promise<StoredVersion[]>;
  /** A stored version's content as the resource (a Binary's data back from R2). */
  hydrate(content: string): Promise<Resource>;
  /** Whether a search would be answered, without running it (search/check.ts): the parsed search, or the 400 it would answer. */
  checkSearch(type: string | undefined, query: string | URLSearchParams): SearchRequest;

  // ---- writes
  create(resource: Resource, options?: { ifNoneExist?: string }): Promise<WriteResult>;
  update(resource: Resource & { id: string }, options?: UpdateOptions): Promise<WriteResult>;
  conditionalUpdate(query: string, resource: Resource, options?: UpdateOptions): Promise<WriteResult>;
  /** `operations`: a JSON Patch array, or a FHIRPath Patch Parameters resource. */
  patch(type: string, id: string, operations: unknown, options?: UpdateOptions): Promise<WriteResult>;
  delete(type: string, id: string, options?: UpdateOptions): Promise<void>;
  /** Deletes the single resource a search selects (412 when several match); answers how many matched. */
  conditionalDelete(type: string, query: string): Promise<number>;
  batch(bundle: Bundle): Promise<Bundle>;

  // ---- operations
  validate(resource: unknown, type?: string): Promise<Resource>;
  /**
   * Patient/$everything: the patient, its compartment, and what those resources reference.
   * AuditEvents about the patient are in the compartment but are the record's log, not its content.
   */
  everything(patientId: string): Promise<Bundle>;
  /** $everything with its shortfalls, optionally of chosen types only (what a summary reads: IPS $summary). */
  patientEverything(patientId: string, options?: EverythingOptions): Promise<PatientEverything>;

  // ---- audit (audit-trail.ts)
  /** Records the audit of an interaction that writes nothing else (a read, a search, a refused write). */
  recordAudit(input: AuditInput): Promise<void>;
  /** Stores an AuditEvent another module built (clients cannot write AuditEvents); `pendingLog`: straight to the pending log. */
  writeAuditEvent(event: Resource, options?: { pendingLog?: boolean }): Promise<void>;
  /** Runs `run` with every audit it records held, then sends them in one queue call (before its result is returned). */
  auditingTogether<T>(run: () => Promise<T>): Promise<T>;
  /** Starts the flush of the pending audit log that `holdAuditFlush` held, if the writes since asked for one. */
  releaseAuditFlush(): void;
}
