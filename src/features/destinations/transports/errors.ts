// The failure class of an error a delivery threw (a connector gone, a refused address, a socket
// that failed): transports answer failures as values, and this is how they name them.
import { ApiError } from "../../../platform/errors";
import { failed } from "../classify";
import type { AttemptResult, FailureClass } from "../model";

const BY_CODE: Readonly<Record<string, FailureClass>> = {
  CONNECTOR_NOT_FOUND: "configuration",
  CONNECTOR_TYPE_MISMATCH: "configuration",
  CONNECTOR_URL_OUTSIDE_ENDPOINT: "configuration",
  CONNECTOR_AUTH_FAILED: "unreachable",
  DESTINATION_NOT_ALLOWED: "not_allowed",
  HL7_SEND_TIMEOUT: "timeout",
  HL7_SEND_FAILED: "refused",
  HL7_SEND_CANCELLED: "timeout",
  TOO_MANY_REDIRECTS: "redirect",
};

export function errorResult(err: unknown): AttemptResult {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError) return failed(BY_CODE[err.code] ?? (err.status === 400 ? "configuration" : "unreachable"), message);
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return failed("timeout", "The receiver sent no answer in time");
  if (/network connection lost|connection refused|ECONNREFUSED/i.test(message)) return failed("refused", `Connection refused or closed before an answer: ${message}`);
  return failed("unreachable", message);
}
