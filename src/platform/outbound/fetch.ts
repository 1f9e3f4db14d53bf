// Outbound HTTP through the guard: the destination is checked before the request,
// and redirects are followed here, hop by hop, so a permitted server cannot bounce
// the request (and its credentials) to a refused one. The forbidden target is never
// contacted, so its response can never end up in an execution record.
import { ApiError } from "../errors";
import { assertAllowed, checkUrl, type OutboundPolicy, outboundPolicyOf } from "./policy";

export const MAX_REDIRECTS = 5;

/** Headers that carry credentials: dropped when a redirect leaves the origin. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

export interface GuardedFetchOptions {
  policy: OutboundPolicy;
  /** Extra credential headers (a connector's custom auth header) to drop on a cross-origin hop. */
  credentialHeaders?: string[];
  /** The network; defaults to globalThis.fetch at call time (tests replace it). */
  fetch?: typeof fetch;
  /**
   * Send a stream body as a stream instead of buffering it for a 307/308 resend (a DICOM
   * study can be larger than a Worker's memory); such a redirect then fails instead.
   */
  streamBodies?: boolean;
}

export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/**
 * A fetch that refuses destinations the policy refuses, on the first request and on every redirect.
 * `redirect: "manual"` in init answers a redirect as it came, unfollowed (queued deliveries do not follow them).
 */
export function guardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const network = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const credentials = [...CREDENTIAL_HEADERS, ...(options.credentialHeaders ?? []).map((h) => h.toLowerCase())];
  return async (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    let url = new URL(input instanceof Request ? input.url : input);
    let method = (init.method ?? request?.method ?? "GET").toUpperCase();
    const headers = new Headers(init.headers ?? request?.headers);
    // A stream is buffered so 307/308 can resend it (unless streamBodies); other bodies replay as they are.
    const source = init.body ?? request?.body ?? undefined;
    const streamed = source instanceof ReadableStream && options.streamBodies === true;
    let body: BodyInit | undefined = source instanceof ReadableStream && !streamed ? await new Response(source).arrayBuffer() : (source ?? undefined);
    // Node's fetch sends a stream body only with duplex "half"; workerd ignores the field.
    const duplex = streamed ? ({ duplex: "half" } as RequestInit) : {};
    const signal = init.signal ?? request?.signal;
    const manual = init.redirect === "manual";
    for (let hop = 0; ; hop++) {
      assertAllowed(checkUrl(url, options.policy));
      const res = await network(url.toString(), { ...init, ...duplex, method, headers, body, signal, redirect: "manual" });
      const location = isRedirect(res.status) ? res.headers.get("location") : null;
      if (location === null || manual) return res;
      await res.body?.cancel();
      if (streamed && (res.status === 307 || res.status === 308)) {
        throw new ApiError(502, "REDIRECT_NOT_REPLAYABLE", `${url.origin} redirected a streamed request body (HTTP ${res.status}); it cannot be sent again`);
      }
      if (hop >= MAX_REDIRECTS) throw new ApiError(502, "TOO_MANY_REDIRECTS", `More than ${MAX_REDIRECTS} redirects from ${url.origin}`);
      const next = new URL(location, url);
      if (next.origin !== url.origin) for (const h of credentials) headers.delete(h);
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without a body.
      if (res.status === 303 ? method !== "HEAD" : (res.status === 301 || res.status === 302) && method === "POST") {
        method = "GET";
        body = undefined;
        headers.delete("content-type");
      }
      url = next;
    }
  };
}

/** The deployment's guarded fetch (OUTBOUND_ALLOW), for callers holding the Worker env. */
export const outboundFetch = (env: object, credentialHeaders?: string[]): GuardedFetch => guardedFetch({ policy: outboundPolicyOf(env), credentialHeaders });
