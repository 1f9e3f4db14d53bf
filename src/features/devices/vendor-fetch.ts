// The fetch every vendor call goes through (manual syncs, webhook fetches, token refreshes): the
// outbound guard's, with a time limit, and a request that gets no answer thrown as a
// PlatformError naming its cause (DNS failure, refused, timeout, TLS), never the runtime's bare
// "internal error"; the sync log and the webhook event log show that message.
import { ApiError } from "../../platform/errors";
import { tcpProbe } from "../../platform/outbound/connect";
import { fetchFailureOf, type TcpProbe } from "../../platform/outbound/failure";
import { outboundFetch } from "../../platform/outbound/fetch";
import { outboundPolicyOf } from "../../platform/outbound/policy";
import { PlatformError } from "./platform-adapter";

/** A vendor call that sends no answer within this long fails as a timeout (a sync retries it). */
export const VENDOR_TIMEOUT_MS = 30_000;

export interface VendorFetchOptions {
  readonly timeoutMs?: number;
  readonly probe: TcpProbe;
}

/** `fetch` with a time limit, its failures named (kind `unreachable` for DNS, else `unavailable`). */
export function namingFailures(fetch: typeof globalThis.fetch, options: VendorFetchOptions): typeof globalThis.fetch {
  const timeoutMs = options.timeoutMs ?? VENDOR_TIMEOUT_MS;
  const limit = timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`;
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const timeout = AbortSignal.timeout(timeoutMs);
    const own = init.signal ?? (input instanceof Request ? input.signal : undefined);
    try {
      return await fetch(input, { ...init, signal: own ? AbortSignal.any([own, timeout]) : timeout });
    } catch (e) {
      // The guard's refusal is named already; the caller's own abort is the caller's.
      if (e instanceof ApiError || e instanceof PlatformError || own?.aborted) throw e;
      const failure = timeout.aborted ? { kind: "timeout", message: `timeout: ${url.host} sent no answer within ${limit}` } : await fetchFailureOf(e, url, options.probe);
      throw new PlatformError(failure.kind === "dns" ? "unreachable" : "unavailable", `${method} ${url.host}${url.pathname}: ${failure.message}`);
    }
  };
}

/** The deployment's vendor fetch: the outbound guard's (OUTBOUND_ALLOW), failures named. */
export const vendorFetch = (env: object): typeof globalThis.fetch => namingFailures(outboundFetch(env), { probe: tcpProbe(outboundPolicyOf(env)) });
