// Content-coding negotiation (RFC 9110 section 12.5.3) for responses the service can send
// in more than one coding, e.g. export files stored gzip-compressed.
//
// A Worker's request does not carry the client's Accept-Encoding: Cloudflare's edge sets it to
// "br, gzip" whatever the client sent and keeps the client's own value in
// `request.cf.clientAcceptEncoding` (developers.cloudflare.com/fundamentals/reference/http-headers),
// and Miniflare does the same under `npm start` and `npm run dev` (its entry worker,
// miniflare/dist/src/workers/core/entry.worker.js: `clientAcceptEncoding: header ?? ""`). So the
// negotiation reads the client's value there; only a request without `cf` (a test calling the app
// directly) is read from its own header.

/** Codings we know by another name. */
const ALIASES: Record<string, string> = { "x-gzip": "gzip" };

function weights(header: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    out.set(ALIASES[name] ?? name, Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 1) : 0);
  }
  return out;
}

/** What the client itself sent as Accept-Encoding (undefined when nothing). */
export function clientAcceptEncoding(request: Request): string | undefined {
  const fromEdge = (request as { cf?: { clientAcceptEncoding?: unknown } }).cf?.clientAcceptEncoding;
  if (typeof fromEdge === "string") return fromEdge || undefined;
  return request.headers.get("accept-encoding") ?? undefined;
}

/**
 * The coding of `available` (in order of preference) the client weights highest, or undefined
 * when it accepts none of them. Without the header only identity is assumed: compressing for a
 * client that never asked for it breaks clients that do not decode. Identity stays acceptable
 * unless `identity;q=0` or `*;q=0` excludes it.
 */
export function negotiateEncoding(header: string | undefined, available: readonly string[]): string | undefined {
  const w = weights(header ?? "");
  const star = w.get("*");
  // Identity unmentioned is acceptable but least preferred: `gzip;q=0.5` still asks for gzip.
  const weightOf = (coding: string) => w.get(coding) ?? star ?? (coding === "identity" ? Number.MIN_VALUE : 0);
  let best: { coding: string; q: number } | undefined;
  for (const coding of available) {
    const q = weightOf(coding);
    if (q > 0 && (!best || q > best.q)) best = { coding, q };
  }
  return best?.coding;
}
