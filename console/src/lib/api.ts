// The console's one way to call the service: same-origin fetch with the session cookie, the CSRF
// header on every request, and the API's error message surfaced as is.
export const CSRF_HEADER = "x-cdis-console";

/** An API answer other than 2xx, carrying the service's own code and message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The `Retry-After` seconds the service sent with it (a locked sign-in, a rate limit). */
    readonly retryAfterSeconds?: number,
    /** The answer's parsed body (a FHIR OperationOutcome's issues, for a page that lists them). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** Fired when the service says the session is gone (expired, signed out elsewhere, key revoked). */
export const SESSION_ENDED = "cdis:session-ended";

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Do not announce a 401 as the session's end (sign-in and the first who-am-I). */
  quiet401?: boolean;
  /** Extra request headers (e.g. a Bulk Data kick-off's Accept and Prefer). */
  headers?: Record<string, string>;
}

export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { [CSRF_HEADER]: "1", accept: "application/json", ...opts.headers };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method: opts.method ?? "GET",
      headers,
      credentials: "same-origin",
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
  } catch {
    throw new ApiFailure(0, "NETWORK", "The service could not be reached. Check your connection and try again.");
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!res.ok) {
    const failure = failureOf(res.status, parsed, retryAfter(res.headers.get("retry-after")));
    if (res.status === 401 && !opts.quiet401) window.dispatchEvent(new CustomEvent(SESSION_ENDED, { detail: failure.message }));
    throw failure;
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The management API's `{"error":{code,message}}` or a FHIR OperationOutcome, as one failure. */
function failureOf(status: number, body: unknown, retryAfterSeconds?: number): ApiFailure {
  const b = body as { error?: { code?: string; message?: string; details?: { path: string; message: string }[] }; resourceType?: string; issue?: { diagnostics?: string; details?: { text?: string } }[] } | undefined;
  // The field errors name what to fix ("pipeline_id: Invalid UUID"), which the summary alone does not.
  const fields = (b?.error?.details ?? []).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ");
  if (b?.error?.message) return new ApiFailure(status, b.error.code ?? "ERROR", fields ? `${b.error.message} (${fields})` : b.error.message, retryAfterSeconds, body);
  const issue = b?.resourceType === "OperationOutcome" ? b.issue?.[0] : undefined;
  if (issue) return new ApiFailure(status, "OPERATION_OUTCOME", issue.diagnostics ?? issue.details?.text ?? `HTTP ${status}`, retryAfterSeconds, body);
  return new ApiFailure(status, "HTTP_ERROR", `The service answered HTTP ${status}`, retryAfterSeconds);
}

/** Retry-After in seconds (the service sends seconds, never a date). */
function retryAfter(header: string | null): number | undefined {
  const n = header === null ? Number.NaN : Number(header);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** `path` with the query parameters that are set. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}
