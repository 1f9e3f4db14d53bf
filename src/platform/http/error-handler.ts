// Turns anything thrown during a request into the documented error shape:
// OperationOutcome under /fhir, {"error":{...}} elsewhere. Unexpected errors are
// logged with the request id and answered 500 without internals.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { isUniqueViolation } from "../db/errors";
import { ApiError, conflict, managementErrorBody, operationOutcome } from "../errors";
import type { HttpEnv } from "./http-env";
import { logger } from "../observability/log";
import { fhirJsonContentType } from "./fhir-json";

const CODE_BY_STATUS: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

export const isFhirPath = (path: string) => path.startsWith("/fhir/");

export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException && err.status < 500) {
    return new ApiError(err.status, CODE_BY_STATUS[err.status] ?? "BAD_REQUEST", err.message || "Bad request");
  }
  // Stores allocate numbers and names atomically; a constraint a racing request still hits is a conflict, not a fault.
  if (isUniqueViolation(err)) return conflict("The request conflicts with a concurrent change; retry", "CONFLICT");
  return undefined;
}

export function errorResponse<E extends HttpEnv>(c: Context<E>, err: ApiError): Response {
  const requestId = c.get("requestId");
  c.set("errorCode", err.code);
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  if (isFhirPath(c.req.path)) {
    c.header("Content-Type", fhirJsonContentType(c.req.header("accept")));
    return c.body(JSON.stringify(operationOutcome(err, requestId)), err.status as 400);
  }
  return c.json(managementErrorBody(err, requestId), err.status as 400);
}

export function onError<E extends HttpEnv>(err: unknown, c: Context<E>): Response {
  const known = toApiError(err);
  if (known) return errorResponse(c, known);
  logger(c.env).error("unhandled error", {
    request_id: c.get("requestId"),
    method: c.req.method,
    route: c.req.routePath,
    error_name: err instanceof Error ? err.name : typeof err,
    error_message: err instanceof Error ? err.message : String(err),
    stack: err instanceof Error ? err.stack?.split("\n").slice(1, 4).join(" | ") : undefined,
  });
  return errorResponse(
    c,
    new ApiError(500, "INTERNAL", `Internal server error; quote request id ${c.get("requestId")} when reporting it`),
  );
}

export function onNotFound<E extends HttpEnv>(c: Context<E>): Response {
  return errorResponse(c, new ApiError(404, "NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`));
}
