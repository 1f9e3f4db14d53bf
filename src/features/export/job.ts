// The state of one export and the step that advances it: writes whole files,
// persisting its position after each, so an interrupted run resumes at the
// start of the file it was writing (that file's upload is aborted and redone).
import { ApiError } from "../../platform/errors";
import type { Principal } from "../tenancy";
import { subsetLine } from "./elements";
import { GzipNdjsonUpload, abortUpload } from "./gzip-upload";
import type { ExportRequest } from "./kickoff";
import type { ExportQuery, ExportSource } from "./source";

/**
 * Lease on the org's export slot; the job renews it every chunk, so a dead job frees it soon. Here,
 * not in export-job.ts, so the kick-off takes it without importing the Durable Object (and, through
 * it, the composition root).
 */
export const EXPORT_SLOT_LEASE_MS = 5 * 60_000;

export interface ExportFile {
  type: string;
  name: string;
  key: string;
  count: number;
}

export type ExportStatus = "running" | "completed" | "failed" | "cancelled";

export interface ExportJobState {
  id: string;
  orgId: string;
  /** Who kicked the export off: the pages are read as this principal (scopes absent in jobs started before they were recorded). */
  requestedBy: Requester;
  request: ExportRequest;
  status: ExportStatus;
  /** Export includes resources updated up to and including this instant. */
  transactionTime: string;
  createdAt: string;
  completedAt?: string;
  expiresAt?: string;
  /** Patient ids for Patient/Group-level export; "all" for every patient. */
  patients?: string[] | "all";
  typeIndex: number;
  cursor?: string;
  files: ExportFile[];
  errorFiles: ExportFile[];
  /**
   * Problems reported in the manifest's error file as OperationOutcomes: per type (a type the
   * store could not serve), or about the request (`type` absent; parameters ignored under
   * `Prefer: handling=lenient`, as warnings).
   */
  issues: { type?: string; message: string; severity?: "error" | "warning" }[];
  exported: number;
  openUpload?: { key: string; uploadId: string };
  attempts: number;
  failure?: string;
}

export interface JobLimits {
  /** Rows of a file's first page; later pages hold about pageBytes of NDJSON, within [1, maxPageSize] rows. */
  pageSize: number;
  maxPageSize: number;
  pageBytes: number;
  maxLinesPerFile: number;
  maxBytesPerFile: number;
}

export const DEFAULT_JOB_LIMITS: JobLimits = {
  pageSize: 500,
  maxPageSize: 5000,
  pageBytes: 4 * 1024 * 1024,
  maxLinesPerFile: 100_000,
  maxBytesPerFile: 256 * 1024 * 1024,
};

/** Rows for the next page, from the size of the last one: pages hold about the same bytes whatever the resources weigh. */
export function nextPageSize(limits: JobLimits, lastLines: string[]): number {
  if (!lastLines.length) return limits.pageSize;
  const average = lastLines.reduce((n, l) => n + l.length, 0) / lastLines.length;
  return Math.max(1, Math.min(limits.maxPageSize, Math.floor(limits.pageBytes / Math.max(1, average))));
}

export interface JobDeps {
  source: ExportSource;
  bucket: R2Bucket;
  /** Saves the state durably; called after every file. */
  persist(state: ExportJobState): Promise<void>;
  limits?: JobLimits;
  now?: () => number;
}

/**
 * The principal as an export job keeps it: everything the store's access policies judge by (the
 * role, a token's SMART grant, the client, the user, the access policy), so a job reads no more
 * than its requester could have read at kick-off.
 */
export type Requester = Pick<Principal, "keyId" | "keyName" | "role"> & Partial<Pick<Principal, "scopes" | "user" | "client" | "fhirGrant" | "accessPolicyId">>;

export function requesterRecordOf({ keyId, keyName, role, scopes, user, client, fhirGrant, accessPolicyId }: Principal): Requester {
  return { keyId, keyName, role, scopes, ...(user ? { user } : {}), ...(client ? { client } : {}), ...(fhirGrant ? { fhirGrant } : {}), ...(accessPolicyId ? { accessPolicyId } : {}) };
}

/** The principal an export reads as: its requester (the store's access policies judge every page). */
export function requesterOf(state: Pick<ExportJobState, "orgId" | "requestedBy">): Principal {
  return { ...state.requestedBy, orgId: state.orgId, scopes: state.requestedBy.scopes ?? [] };
}

export function fileKey(state: Pick<ExportJobState, "orgId" | "id">, name: string): string {
  return `exports/${state.orgId}/${state.id}/${name}`;
}

/** `includeAssociatedData` adds resources of this type, after the requested ones. */
const ASSOCIATED_TYPE = "Provenance";

/** The types the export writes, in order: the requested ones, then associated Provenance. */
export function exportPhases(request: ExportRequest): string[] {
  return request.associated ? [...request.types, ASSOCIATED_TYPE] : request.types;
}

export function percentDone(state: ExportJobState): number {
  const types = exportPhases(state.request).length || 1;
  return Math.min(99, Math.floor((state.typeIndex / types) * 100));
}

/** What one page of `type` asks the source, from the export's request and position. */
function pageQuery(state: ExportJobState, type: string, cursor: string | undefined, limit: number): ExportQuery {
  const { request } = state;
  const associated = state.typeIndex >= request.types.length;
  return {
    type,
    ...(request.since ? { since: request.since } : {}),
    until: state.transactionTime,
    ...(cursor ? { cursor } : {}),
    limit,
    ...(state.patients ? { compartment: { patients: state.patients } } : {}),
    ...(!associated && request.typeFilters[type] ? { filters: request.typeFilters[type] } : {}),
    ...(associated
      ? {
          associated: {
            latestOnly: request.associated === "LatestProvenanceResources",
            focal: request.types.map((t) => ({ type: t, ...(request.typeFilters[t] ? { filters: request.typeFilters[t] } : {}) })),
          },
        }
      : {}),
  };
}

/** Runs until the export is written or `budgetMs` passes; returns whether it finished. */
export async function advanceExport(state: ExportJobState, deps: JobDeps, budgetMs: number): Promise<boolean> {
  const limits = deps.limits ?? DEFAULT_JOB_LIMITS;
  const now = deps.now ?? Date.now;
  const deadline = now() + budgetMs;
  if (state.openUpload) {
    await abortUpload(deps.bucket, state.openUpload.key, state.openUpload.uploadId);
    state.openUpload = undefined;
  }
  const phases = exportPhases(state.request);
  while (state.typeIndex < phases.length) {
    if (now() >= deadline) return false;
    const type = phases[state.typeIndex]!;
    try {
      await writeOneFile(state, type, deps, limits);
    } catch (err) {
      // A type the store cannot serve (e.g. a malformed _typeFilter) is reported, not fatal.
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      state.issues.push({ type, message: err.message });
      state.typeIndex++;
      state.cursor = undefined;
    }
    await deps.persist(state);
  }
  await writeIssues(state, deps);
  return true;
}

async function writeOneFile(state: ExportJobState, type: string, deps: JobDeps, limits: JobLimits): Promise<void> {
  const seq = state.files.filter((f) => f.type === type).length + 1;
  const name = `${type}-${seq}.ndjson`;
  const key = fileKey(state, name);
  const upload = await GzipNdjsonUpload.open(deps.bucket, key);
  state.openUpload = { key, uploadId: upload.uploadId };
  await deps.persist(state);
  let cursor = state.cursor;
  let exhausted = false;
  let pageSize = limits.pageSize;
  try {
    while (upload.lineCount < limits.maxLinesPerFile && upload.byteCount < limits.maxBytesPerFile) {
      const page = await deps.source.exportPage(pageQuery(state, type, cursor, Math.min(pageSize, limits.maxLinesPerFile - upload.lineCount)));
      await upload.writeLines(page.lines.map((line) => subsetLine(line, type, state.request.elements)));
      pageSize = nextPageSize(limits, page.lines);
      cursor = page.cursor;
      if (!cursor) {
        exhausted = true;
        break;
      }
    }
  } catch (err) {
    await upload.abort();
    state.openUpload = undefined;
    throw err;
  }
  const result = await upload.close();
  state.openUpload = undefined;
  if (result.lines > 0) state.files.push({ type, name, key, count: result.lines });
  else await deps.bucket.delete(key);
  state.exported += result.lines;
  if (exhausted) {
    state.typeIndex++;
    state.cursor = undefined;
  } else {
    state.cursor = cursor;
  }
}

async function writeIssues(state: ExportJobState, deps: JobDeps): Promise<void> {
  if (!state.issues.length || state.errorFiles.length) return;
  const name = "OperationOutcome-1.ndjson";
  const key = fileKey(state, name);
  const upload = await GzipNdjsonUpload.open(deps.bucket, key);
  await upload.writeLines(
    state.issues.map((issue) =>
      JSON.stringify({
        resourceType: "OperationOutcome",
        issue: [
          {
            severity: issue.severity ?? "error",
            code: issue.type ? "processing" : "not-supported",
            diagnostics: issue.type ? `${issue.type}: ${issue.message}` : issue.message,
          },
        ],
      }),
    ),
  );
  const result = await upload.close();
  state.errorFiles.push({ type: "OperationOutcome", name, key, count: result.lines });
  await deps.persist(state);
}

/** Removes every file an export wrote (and an interrupted upload). */
export async function deleteExportFiles(state: ExportJobState, bucket: R2Bucket): Promise<void> {
  if (state.openUpload) await abortUpload(bucket, state.openUpload.key, state.openUpload.uploadId);
  const keys = [...state.files, ...state.errorFiles].map((f) => f.key);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}
