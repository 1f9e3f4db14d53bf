// The one error type of the DICOMweb module: a code a node can pass on as its failure code,
// a message naming what failed, and the remote status when a server answered. It is an
// ApiError, so a route that lets it through answers the documented error shape.
import { ApiError, type FieldError } from "../../platform/errors";

export type DicomwebErrorCode =
  /** A query, UID or option the caller gave is malformed (nothing was sent). */
  | "DICOMWEB_INVALID_REQUEST"
  /** The server answered 404: no such study, series or instance (or no such endpoint). */
  | "DICOMWEB_NOT_FOUND"
  /** The server refused the credentials (401/403), or no token could be had. */
  | "DICOMWEB_UNAUTHORIZED"
  /** The server could not be reached (connection refused, DNS, reset before anything was sent). */
  | "DICOMWEB_UNREACHABLE"
  /**
   * STOW: the connection closed after part of the request was sent and before the server
   * answered. Retryable: the server may have stored some instances, and storing an instance
   * again (same SOP Instance UID) replaces it.
   */
  | "DICOMWEB_CONNECTION_LOST"
  /** STOW: every instance was refused (409, or a failed-SOP list with nothing stored), with the per-instance reasons as details. */
  | "DICOMWEB_CONFLICT"
  /** STOW: the instances are over the node's max_bytes (nothing sent), or the server answered 413. */
  | "DICOMWEB_TOO_LARGE"
  /** The server does not offer this (e.g. rendered or thumbnail), or refused the media type. */
  | "DICOMWEB_NOT_SUPPORTED"
  /** Any other 4xx. */
  | "DICOMWEB_REJECTED"
  /** A 5xx. */
  | "DICOMWEB_SERVER_ERROR"
  /** The server answered, but not with what DICOMweb says (bad JSON, bad multipart). */
  | "DICOMWEB_BAD_RESPONSE"
  /** A multipart body we were given to read is malformed. */
  | "MULTIPART_INVALID"
  /** DICOM data (a Part-10 file, a DICOM JSON dataset) lacks what the operation needs. */
  | "DICOM_INVALID";

const HTTP_STATUS: Record<DicomwebErrorCode, number> = {
  DICOMWEB_INVALID_REQUEST: 400,
  DICOMWEB_NOT_FOUND: 404,
  // The remote refused *our* credentials: a gateway problem for our caller, not a 401 of theirs.
  DICOMWEB_UNAUTHORIZED: 502,
  DICOMWEB_UNREACHABLE: 502,
  DICOMWEB_CONNECTION_LOST: 502,
  DICOMWEB_CONFLICT: 409,
  DICOMWEB_TOO_LARGE: 413,
  DICOMWEB_NOT_SUPPORTED: 501,
  DICOMWEB_REJECTED: 502,
  DICOMWEB_SERVER_ERROR: 502,
  DICOMWEB_BAD_RESPONSE: 502,
  MULTIPART_INVALID: 400,
  DICOM_INVALID: 400,
};

export class DicomwebError extends ApiError {
  constructor(
    override readonly code: DicomwebErrorCode,
    message: string,
    /** The DICOMweb server's HTTP status, when it answered. */
    readonly remoteStatus?: number,
    details: FieldError[] = [],
  ) {
    super(HTTP_STATUS[code], code, message, details);
    this.name = "DicomwebError";
  }
}

/** A network failure under a transport (refused, reset, DNS): DICOMWEB_UNREACHABLE naming the origin and the cause. */
export function networkFailure(url: string, e: unknown): DicomwebError {
  const message = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
  return new DicomwebError("DICOMWEB_UNREACHABLE", `${new URL(url).origin} could not be reached: ${message}`);
}

export const invalidRequest = (message: string) => new DicomwebError("DICOMWEB_INVALID_REQUEST", message);
export const badResponse = (message: string, remoteStatus?: number) => new DicomwebError("DICOMWEB_BAD_RESPONSE", message, remoteStatus);
export const multipartInvalid = (message: string) => new DicomwebError("MULTIPART_INVALID", message);
export const dicomInvalid = (message: string) => new DicomwebError("DICOM_INVALID", message);
