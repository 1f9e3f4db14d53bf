// Why an outbound HTTP request got no answer, in words an operator can act on. The runtime says
// little: workerd throws "Network connection lost." for a refused (or dropped) connection and
// "internal error; reference = …" both for a host name that does not resolve and for a failed
// TLS handshake; Cloudflare answers a subrequest whose name does not resolve with 530 (error
// 1016) and names other origin failures with its 52x codes. An "internal error" is told apart
// with one plain TCP connection to the same host and port: it opens → the name resolved and the
// port listens, so TLS (or the exchange after connecting) failed; it does not → DNS. Pure: the
// probe is connect.ts's `tcpProbe`.

export type FailureKind = "dns" | "refused" | "timeout" | "tls" | "network";

export interface OutboundFailure {
  readonly kind: FailureKind;
  readonly message: string;
}

/** Whether a TCP connection to host:port opens (the probe); false when refused, unresolvable or not allowed. */
export type TcpProbe = (host: string, port: number) => Promise<boolean>;

const portOf = (url: URL) => Number(url.port || (url.protocol === "https:" ? 443 : 80));
const isIpLiteral = (host: string) => /^[\d.]+$/.test(host) || host.startsWith("[");

/** The cause of a fetch that threw (not one that answered: see `originFailureOf`). */
export async function fetchFailureOf(error: unknown, url: URL, probe: TcpProbe): Promise<OutboundFailure> {
  const message = error instanceof Error ? error.message : String(error);
  const at = `${url.hostname}:${portOf(url)}`;
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return { kind: "timeout", message: `timeout: ${at} sent no answer in time` };
  if (/network connection lost/i.test(message)) return { kind: "refused", message: `connection refused (or closed before an answer) by ${at}` };
  if (/^internal error/i.test(message)) {
    if (await probe(url.hostname, portOf(url))) {
      return url.protocol === "https:" ? { kind: "tls", message: `TLS handshake with ${at} failed` } : { kind: "network", message: `the exchange with ${at} failed after connecting` };
    }
    if (isIpLiteral(url.hostname)) return { kind: "refused", message: `cannot connect to ${at}` };
    return { kind: "dns", message: `DNS failure: ${url.hostname} did not resolve` };
  }
  return { kind: "network", message: `network error reaching ${at}: ${message}` };
}

/** Cloudflare's answers for an origin it could not reach (status, and for 530 the 1016 in the body); undefined for a real answer. */
export function originFailureOf(status: number, body: string): OutboundFailure | undefined {
  if (status === 530 && /\b1016\b/.test(body)) return { kind: "dns", message: "DNS failure: the host name did not resolve (Cloudflare 530, error 1016)" };
  const named: Readonly<Record<number, OutboundFailure>> = {
    521: { kind: "refused", message: "the server refused the connection (Cloudflare 521)" },
    522: { kind: "timeout", message: "timeout connecting to the server (Cloudflare 522)" },
    523: { kind: "network", message: "the server is unreachable (Cloudflare 523)" },
    524: { kind: "timeout", message: "timeout: the server sent no answer in time (Cloudflare 524)" },
    525: { kind: "tls", message: "TLS handshake with the server failed (Cloudflare 525)" },
    526: { kind: "tls", message: "the server's TLS certificate is invalid (Cloudflare 526)" },
  };
  return named[status];
}
