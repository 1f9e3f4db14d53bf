// Calls to a vendor's data API: bearer token, JSON answers, and the vendor's failures named
// as PlatformErrors the sync log understands (429 with Retry-After or the vendor's reset
// header, 401 → refresh, 403 → revoked, 410 → platform retired, 5xx → retry).
import { type PlatformCall, PlatformError } from "../platform-adapter";
import { originFailureOf } from "../../../platform/outbound/failure";

/** Seconds to wait from a 429: Retry-After, else the vendor's own reset headers (WHOOP, Fitbit). */
export function retryAfterSeconds(headers: Headers): number | undefined {
  for (const name of ["retry-after", "x-ratelimit-reset", "fitbit-rate-limit-reset", "ratelimit-reset"]) {
    const raw = headers.get(name);
    if (raw === null) continue;
    const seconds = Number(raw);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
    const date = Date.parse(raw);
    if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  return undefined;
}

/** The PlatformError a failed vendor response means. */
export async function failureOf(res: Response, what: string): Promise<PlatformError> {
  const detail = (await res.text().catch(() => "")).slice(0, 200);
  // Cloudflare's answer for a vendor it could not reach (DNS, refused, timeout, TLS), named.
  const origin = originFailureOf(res.status, detail);
  if (origin) return new PlatformError(origin.kind === "dns" ? "unreachable" : "unavailable", `${what}: ${origin.message}`, retryAfterSeconds(res.headers));
  const message = `${what}: HTTP ${res.status}${detail ? ` ${detail}` : ""}`;
  if (res.status === 429) return new PlatformError("rate_limited", message, retryAfterSeconds(res.headers) ?? 60);
  if (res.status === 401) return new PlatformError("unauthorized", message);
  // 410: the vendor switched the endpoint off for good (the Fitbit Web API after its retirement, reference V5).
  if (res.status === 410) return new PlatformError("revoked", `platform retired: ${message}`);
  if (res.status === 403) return new PlatformError("revoked", message);
  if (res.status >= 500 || res.status === 408) return new PlatformError("unavailable", message, retryAfterSeconds(res.headers));
  return new PlatformError("invalid", message);
}

export interface VendorRequest {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Authenticate with the device's access token (default) or not at all (the request carries its own). */
  readonly auth?: "bearer" | "none";
}

/** One vendor call; the answer's JSON, or a PlatformError. */
export async function vendorJson<T = unknown>(call: PlatformCall, url: string, request: VendorRequest = {}): Promise<T> {
  const res = await vendorCall(call, url, request);
  if (!res.ok) throw await failureOf(res, `${request.method ?? "GET"} ${new URL(url).pathname}`);
  const text = await res.text();
  try {
    return (text ? JSON.parse(text) : {}) as T;
  } catch {
    throw new PlatformError("invalid", `${new URL(url).pathname} answered something other than JSON`);
  }
}

/** The raw response (for callers that read statuses themselves, e.g. Garmin backfill's 202/409). */
export function vendorCall(call: PlatformCall, url: string, request: VendorRequest = {}): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set("accept", "application/json");
  if ((request.auth ?? "bearer") === "bearer") {
    if (!call.tokens?.accessToken) throw new PlatformError("unauthorized", "the device has no access token");
    headers.set("authorization", `Bearer ${call.tokens.accessToken}`);
  }
  return call.fetch(url, { method: request.method ?? "GET", headers, ...(request.body !== undefined ? { body: request.body } : {}) });
}

/** `url` with query parameters added (undefined ones left out). */
export function withQuery(url: string, query: Readonly<Record<string, string | number | undefined>>): string {
  const out = new URL(url);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) out.searchParams.set(k, String(v));
  return out.toString();
}

/** Basic client authentication, as Polar, Suunto and Fitbit want it on their management calls. */
export const basicAuth = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;
