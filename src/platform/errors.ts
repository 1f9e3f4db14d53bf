// The one place HTTP errors are defined and shaped: the management API answers
// {"error":{"code","message","status"}}; FHIR routes answer an OperationOutcome.

export interface FieldError {
  /** Dotted path of the offending field (management) or FHIRPath expression (FHIR). */
  path: string;
  message: string;
  /** A coded reason of its own (e.g. an IHE XDS error code), for the OperationOutcome issue's details. */
  coding?: { system: string; code: string };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (message: string, details?: FieldError[]) =>
  new ApiError(400, "BAD_REQUEST", message, details);
export const validationFailed = (message: string, details: FieldError[]) =>
  new ApiError(400, "VALIDATION_FAILED", message, details);
export const unauthorized = (message: string) => new ApiError(401, "UNAUTHORIZED", message);
export const forbidden = (message: string) => new ApiError(403, "FORBIDDEN", message);
export const notFound = (message: string, code = "NOT_FOUND") => new ApiError(404, code, message);
export const conflict = (message: string, code = "CONFLICT") => new ApiError(409, code, message);
export const payloadTooLarge = (limit: number) =>
  new ApiError(413, "PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${limit} bytes`);
/** A value too large to store (413); the message names the limit and what to do instead. */
export const tooLargeToStore = (message: string) => new ApiError(413, "PAYLOAD_TOO_LARGE", message);
export const unsupportedMediaType = (message: string) =>
  new ApiError(415, "UNSUPPORTED_MEDIA_TYPE", message);
export const agentNotFound = (id: string) => notFound(`Agent ${id} not found`, "AGENT_NOT_FOUND");
export const agentNotDeployed = (id: string) =>
  conflict(`Agent ${id} is not deployed; deploy it to use it from pipelines and the public API`, "AGENT_NOT_DEPLOYED");
export const modelUnavailable = (message: string) => new ApiError(503, "MODEL_UNAVAILABLE", message);
export const modelError = (message: string) => new ApiError(502, "MODEL_ERROR", message);
export const modelTimeout = (message: string) => new ApiError(504, "MODEL_TIMEOUT", message);
export const serviceUnavailable = (message: string) => new ApiError(503, "SERVICE_UNAVAILABLE", message);
/** A search whose plan would read more rows than a request may (FHIR issue type too-costly). */
export const tooCostly = (message: string) => new ApiError(400, "TOO_COSTLY", message);
/** Writes of an organization that an operator is moving to another shard; reads still work. */
export const orgMoving = (retryAfterSeconds: number) =>
  new ApiError(503, "ORG_MOVING", "This organization is being moved to another database; writes are paused, retry shortly", [], {
    "Retry-After": String(retryAfterSeconds),
  });
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, "RATE_LIMITED", message, [], { "Retry-After": String(retryAfterSeconds) });

export interface ManagementErrorBody {
  error: { code: string; message: string; status: number; details?: FieldError[]; request_id?: string };
}

export function managementErrorBody(err: ApiError, requestId?: string): ManagementErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      status: err.status,
      ...(err.details.length ? { details: err.details } : {}),
      ...(requestId ? { request_id: requestId } : {}),
    },
  };
}

/** FHIR issue-type codes (http://hl7.org/fhir/issue-type) for each HTTP status we emit. */
const ISSUE_TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid",
  401: "login",
  403: "forbidden",
  404: "not-found",
  405: "not-supported",
  406: "not-supported",
  409: "conflict",
  410: "deleted",
  412: "conflict",
  413: "too-costly",
  415: "not-supported",
  422: "processing",
  429: "throttled",
};

export interface OperationOutcomeIssue {
  severity: "fatal" | "error" | "warning" | "information";
  code: string;
  diagnostics?: string;
  expression?: string[];
  details?: { coding?: { system: string; code: string }[]; text?: string };
}

export interface OperationOutcome {
  resourceType: "OperationOutcome";
  id?: string;
  issue: OperationOutcomeIssue[];
}

/** Issue types of error codes more specific than their status. */
const ISSUE_TYPE_BY_CODE: Record<string, string> = { TOO_COSTLY: "too-costly", ORG_MOVING: "transient" };

export function operationOutcome(err: ApiError, requestId?: string): OperationOutcome {
  const code = ISSUE_TYPE_BY_CODE[err.code] ?? ISSUE_TYPE_BY_STATUS[err.status] ?? "exception";
  const details = { coding: [{ system: "urn:cdis:error-code", code: err.code }] };
  const issues: OperationOutcomeIssue[] = err.details.length
    ? err.details.map((d) => ({
        severity: "error",
        code,
        diagnostics: d.message,
        expression: [d.path],
        details: d.coding ? { coding: [d.coding], text: d.coding.code } : details,
      }))
    : [{ severity: "error", code, diagnostics: err.message, details }];
  return { resourceType: "OperationOutcome", ...(requestId ? { id: requestId } : {}), issue: issues };
}

// FHIR-specific statuses (the FHIR error handler shapes them as OperationOutcome).
export const gone = (message: string) => new ApiError(410, "GONE", message);
export const preconditionFailed = (message: string) => new ApiError(412, "PRECONDITION_FAILED", message);
export const unprocessable = (message: string, details: FieldError[] = []) =>
  new ApiError(422, "UNPROCESSABLE", message, details);
export const notAcceptable = (message: string) => new ApiError(406, "NOT_ACCEPTABLE", message);
export const methodNotAllowed = (message: string) => new ApiError(405, "METHOD_NOT_ALLOWED", message);
