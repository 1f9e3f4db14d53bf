// QIDO-RS query parameters (PS3.18 10.6) from named criteria: the caller says
// "patientId", this writes 00100020; dates become DICOM ranges; paging and includefield
// are checked here, so a bad criterion is a 400 before anything is sent.
import { TAG } from "./dicom-json";
import { invalidRequest } from "./errors";
import { checkUid } from "./uid";

export type QidoLevel = "studies" | "series" | "instances";

export interface QidoQuery {
  /** At series and instance level it goes into the path (/studies/{uid}/series). */
  studyInstanceUid?: string;
  /** Instance level: into the path (/studies/{uid}/series/{uid}/instances) with the study. */
  seriesInstanceUid?: string;
  patientId?: string;
  /** PN matching; `*` and `?` are wildcards. */
  patientName?: string;
  /** A date (YYYYMMDD or YYYY-MM-DD) or a range; an open end is allowed. */
  studyDate?: string | { from?: string; to?: string };
  /** ModalitiesInStudy at study level, Modality below. */
  modality?: string;
  accessionNumber?: string;
  limit?: number;
  offset?: number;
  /** Tags (8 hex digits) or keywords to add to the answer, or "all". */
  includefield?: string[] | "all";
  fuzzymatching?: boolean;
}

function dicomDate(value: string, what: string): string {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value.trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || Number(m[3]) < 1 || Number(m[3]) > 31) throw invalidRequest(`${what} "${value}" is not a date (YYYYMMDD or YYYY-MM-DD)`);
  return `${m[1]}${m[2]}${m[3]}`;
}

function dateRange(value: NonNullable<QidoQuery["studyDate"]>): string {
  if (typeof value === "string") return dicomDate(value, "studyDate");
  const from = value.from ? dicomDate(value.from, "studyDate.from") : "";
  const to = value.to ? dicomDate(value.to, "studyDate.to") : "";
  if (!from && !to) throw invalidRequest("studyDate range needs from, to or both");
  if (from && to && from > to) throw invalidRequest(`studyDate range ${from}-${to} ends before it starts`);
  return `${from}-${to}`;
}

function count(value: number, what: string, min: number): string {
  if (!Number.isInteger(value) || value < min) throw invalidRequest(`${what} must be an integer of at least ${min}, not ${value}`);
  return String(value);
}

// Left as they are in a query: RFC 3986's unreserved and sub-delims (less & = +), and DICOM's
// ^ * ? of names and wildcards. Orthanc 1.10 matches on the raw value without decoding it,
// so "Doe%5EJohn" finds nothing there while "Doe^John" does; every server reads both.
const KEEP = /[A-Za-z0-9\-._~!$'()*,;:@/?^]/;

/** The query text of `params`, percent-encoding only what must be. */
export function queryText(params: URLSearchParams): string {
  const encode = (s: string) => Array.from(s, (c) => (KEEP.test(c) ? c : encodeURIComponent(c))).join("");
  return [...params].map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&");
}

/** The search path (relative to the base URL) and parameters of a QIDO query. */
export function qidoRequest(level: QidoLevel, query: QidoQuery): { path: string; params: URLSearchParams } {
  const params = new URLSearchParams();
  let path: string = level;
  const study = query.studyInstanceUid === undefined ? undefined : checkUid(query.studyInstanceUid, "studyInstanceUid");
  const series = query.seriesInstanceUid === undefined ? undefined : checkUid(query.seriesInstanceUid, "seriesInstanceUid");
  if (level === "studies") {
    if (series) throw invalidRequest("seriesInstanceUid is not a study-level criterion");
    if (study) params.set(TAG.StudyInstanceUID, study);
  } else {
    if (study) path = series && level === "instances" ? `studies/${study}/series/${series}/instances` : `studies/${study}/${level}`;
    if (series && path !== `studies/${study}/series/${series}/instances`) params.set(TAG.SeriesInstanceUID, series);
  }
  const text = (v: string | undefined, what: string) => {
    if (v !== undefined && (typeof v !== "string" || !v.trim() || /[\\\r\n]/.test(v))) throw invalidRequest(`${what} must be non-empty text without backslashes or line breaks`);
    return v?.trim();
  };
  const patientId = text(query.patientId, "patientId");
  if (patientId) params.set(TAG.PatientID, patientId);
  const patientName = text(query.patientName, "patientName");
  if (patientName) params.set(TAG.PatientName, patientName);
  if (query.studyDate !== undefined) params.set(TAG.StudyDate, dateRange(query.studyDate));
  const modality = text(query.modality, "modality");
  if (modality) params.set(level === "studies" ? TAG.ModalitiesInStudy : TAG.Modality, modality.toUpperCase());
  const accession = text(query.accessionNumber, "accessionNumber");
  if (accession) params.set(TAG.AccessionNumber, accession);
  if (query.limit !== undefined) params.set("limit", count(query.limit, "limit", 1));
  if (query.offset !== undefined) params.set("offset", count(query.offset, "offset", 0));
  if (query.fuzzymatching) params.set("fuzzymatching", "true");
  if (query.includefield === "all") params.set("includefield", "all");
  else
    for (const field of query.includefield ?? []) {
      if (!/^([0-9A-Fa-f]{8}|[A-Za-z][A-Za-z0-9]*)$/.test(field)) throw invalidRequest(`includefield "${field}" is not a tag (8 hex digits) or keyword`);
      params.append("includefield", field);
    }
  return { path, params };
}
