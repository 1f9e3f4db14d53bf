// What an answer (or its absence) means for a message: delivered, worth retrying, or permanent.
// HTTP: 2xx delivered; 408, 429 and 5xx retried; 3xx not followed (the endpoint moved: permanent
// until re-registered); 410 gone; other 4xx permanent. HL7: AA/CA delivered; codes on the
// destination's retryable list (AE, CE by default) retried; AR, CR and the rest permanent.
import { type AttemptResult, type FailureClass, RESPONSE_EXCERPT_CHARS } from "./model";

const PERMANENT: ReadonlySet<FailureClass> = new Set(["client_error", "gone", "redirect", "reject", "not_allowed"]);

/** Whether an attempt that failed this way is tried again. */
export const isRetryable = (failure: FailureClass): boolean => !PERMANENT.has(failure);

export const excerpt = (text: string): string => (text.length > RESPONSE_EXCERPT_CHARS ? `${text.slice(0, RESPONSE_EXCERPT_CHARS)}…` : text);

export function httpResult(status: number, body: string, location?: string | null): AttemptResult {
  const response = excerpt(body);
  if (status >= 200 && status < 300) return { ok: true, status, response };
  const failure = ((): { class: FailureClass; message: string } => {
    if (status === 408 || status === 429) return { class: "throttled", message: `The receiver answered HTTP ${status}` };
    if (status >= 500) return { class: "server_error", message: `The receiver answered HTTP ${status}` };
    if (status === 410) return { class: "gone", message: "The receiver answered 410 Gone: the endpoint no longer exists" };
    if (status >= 300 && status < 400) return { class: "redirect", message: `The receiver redirected (HTTP ${status}${location ? ` to ${location}` : ""}); redirects are not followed` };
    return { class: "client_error", message: `The receiver refused the message with HTTP ${status}` };
  })();
  return { ok: false, status, response, failure };
}

const ACCEPTED = new Set(["AA", "CA"]);

/** An HL7 ACK's MSA-1 (and the reason it gives) as an attempt's result. */
export function ackResult(ackCode: string, reason: string, ack: string, retryableCodes: readonly string[]): AttemptResult {
  const response = excerpt(ack);
  if (ACCEPTED.has(ackCode)) return { ok: true, ack_code: ackCode, response };
  const message = `The receiver answered ${ackCode || "without an ACK code"}${reason ? `: ${reason}` : ""}`;
  return { ok: false, ack_code: ackCode, response, failure: { class: retryableCodes.includes(ackCode) ? "nack" : "reject", message } };
}

export const failed = (cls: FailureClass, message: string, extra: Partial<AttemptResult> = {}): AttemptResult => ({ ok: false, ...extra, failure: { class: cls, message } });
