// The outbound guard: may the service call this destination? Every outbound HTTP
// request and TCP connection asks here first (see fetch.ts and connect.ts). Refused by
// default: every address that is not public unicast (loopback, private, link-local,
// CGNAT, multicast, reserved, and IPv6 forms embedding those) and host names that name
// the local machine or a cloud's metadata service. A deployment allows its legitimate
// on-premises targets with OUTBOUND_ALLOW. Pure: tests pass a policy in.
import { logger } from "../observability/log";
import { ApiError } from "../errors";
import { settingsOf } from "../settings";
import { inPrefix, ipv4Bytes, nonPublicReason, parseIPv4, parseIPv6 } from "./ip";

export type AllowEntry =
  | { kind: "cidr"; bytes: number[]; bits: number; port?: number; text: string }
  | { kind: "host"; name: string; wildcard: boolean; port?: number; text: string };

export interface OutboundPolicy {
  allow: readonly AllowEntry[];
}

/** No exceptions: only public destinations. */
export const PUBLIC_ONLY: OutboundPolicy = Object.freeze({ allow: [] });

export type Verdict = { ok: true } | { ok: false; reason: string };

const HTTP_SCHEMES = new Set(["http:", "https:"]);
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

/** Host names that reach the local machine, the local network or a metadata service. */
function localNameReason(name: string): string | undefined {
  if (name === "localhost" || name.endsWith(".localhost")) return "a loopback name";
  if (name.endsWith(".internal") || name === "metadata" || name === "instance-data") return "a cloud-internal or metadata name";
  if (name.endsWith(".local") || name.endsWith(".localdomain") || name.endsWith(".home.arpa")) return "a local-network name";
  // A bare label is completed by the resolver's search domains, i.e. the local network.
  if (!name.includes(".")) return "a single-label (local-network) name";
  return undefined;
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** Lower-cased, without the trailing dot, and syntactically a DNS name; undefined otherwise. */
function normalName(host: string): string | undefined {
  const name = host.toLowerCase().replace(/\.$/, "");
  const labels = name.split(".");
  // A name ending in a number is an IP spelling no parser accepted (999.1.1.1): not a name either.
  if (/^(0x[0-9a-f]*|\d+)$/.test(labels.at(-1) as string)) return undefined;
  return name.length <= 253 && labels.every((l) => LABEL.test(l)) ? name : undefined;
}

/** The address bytes of an IP literal host (IPv6 with or without brackets), else undefined. */
function addressOf(host: string): number[] | undefined {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  const v4 = parseIPv4(bare);
  if (v4 !== undefined) return ipv4Bytes(v4);
  return parseIPv6(bare);
}

function allowed(policy: OutboundPolicy, port: number, address: number[] | undefined, name: string | undefined): boolean {
  return policy.allow.some((e) => {
    if (e.port !== undefined && e.port !== port) return false;
    if (e.kind === "cidr") return address !== undefined && inPrefix(address, e.bytes, e.bits);
    if (name === undefined) return false;
    return e.wildcard ? name.endsWith(`.${e.name}`) : name === e.name;
  });
}

/** May the service open a connection to `host`:`port`? `host` is as the socket API will read it. */
export function checkHost(host: string, port: number, policy: OutboundPolicy): Verdict {
  const address = addressOf(host);
  const name = address ? undefined : normalName(host);
  if (!address && !name) return { ok: false, reason: `${host} is not a valid host name or IP address` };
  const reason = address ? nonPublicReason(address) : localNameReason(name as string);
  if (!reason || allowed(policy, port, address, name)) return { ok: true };
  return { ok: false, reason: `${host} is ${reason}; outbound calls to it are refused unless OUTBOUND_ALLOW lists it` };
}

/** May the service send an HTTP request to `url`? Only http(s), and its host as checkHost. */
export function checkUrl(url: string | URL, policy: OutboundPolicy): Verdict {
  let parsed: URL;
  try {
    // WHATWG parsing normalises 127.1, 2130706433 and 0x7f000001 to 127.0.0.1, as fetch() will.
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: `${String(url)} is not a valid URL` };
  }
  if (!HTTP_SCHEMES.has(parsed.protocol)) return { ok: false, reason: `${parsed.protocol}// URLs are not allowed for outbound HTTP (http and https only)` };
  const port = parsed.port ? Number(parsed.port) : (DEFAULT_PORTS[parsed.protocol] as number);
  return checkHost(parsed.hostname, port, policy);
}

/** The error an outbound call (or a save naming one) fails with. */
export const destinationNotAllowed = (reason: string, details: { path: string; message: string }[] = []) =>
  new ApiError(400, "DESTINATION_NOT_ALLOWED", `Destination not allowed: ${reason}`, details);

/** Throws DESTINATION_NOT_ALLOWED unless the verdict is ok. */
export function assertAllowed(verdict: Verdict): void {
  if (!verdict.ok) throw destinationNotAllowed(verdict.reason);
}

function parseEntry(raw: string): AllowEntry | undefined {
  // host:port, a.b.c.d/n:port, [v6]:port, [v6/n]:port; a bare IPv6 (with colons) has no port.
  const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(raw) ?? (raw.split(":").length === 2 ? /^([^:]+):(\d{1,5})$/.exec(raw) : null);
  const target = (m ? m[1] : raw) as string;
  const port = m?.[2] !== undefined ? Number(m[2]) : undefined;
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const withPort = port === undefined ? {} : { port };
  const [addr, bitsText] = target.split("/");
  const address = addressOf(addr as string);
  if (address) {
    const bits = bitsText === undefined ? address.length * 8 : Number(bitsText);
    if (!Number.isInteger(bits) || bits < 0 || bits > address.length * 8 || !/^\d*$/.test(bitsText ?? "")) return undefined;
    return { kind: "cidr", bytes: address, bits, text: raw, ...withPort };
  }
  if (bitsText !== undefined) return undefined;
  const wildcard = target.startsWith("*.");
  const name = normalName(wildcard ? target.slice(2) : target);
  return name ? { kind: "host", name, wildcard, text: raw, ...withPort } : undefined;
}

/**
 * OUTBOUND_ALLOW: entries separated by commas or whitespace; each a CIDR or address
 * (10.0.0.0/8, 192.168.1.20, fd00::/8, [::1]), a host name (ehr.hospital.internal) or a
 * wildcard (*.hospital.internal, subdomains only), optionally with a port (10.1.2.3:443,
 * [fd00::/8]:2575). Malformed entries are reported and ignored, so they allow nothing.
 */
export function parseOutboundAllow(text: string | undefined): { policy: OutboundPolicy; invalid: string[] } {
  const allow: AllowEntry[] = [];
  const invalid: string[] = [];
  for (const raw of (text ?? "").split(/[\s,]+/).filter(Boolean)) {
    const entry = parseEntry(raw);
    if (entry) allow.push(entry);
    else invalid.push(raw);
  }
  return { policy: Object.freeze({ allow: Object.freeze(allow) }), invalid };
}

const policies = new Map<string, OutboundPolicy>();

/** The deployment's policy (OUTBOUND_ALLOW), parsed once per value. */
export function outboundPolicyOf(env: object): OutboundPolicy {
  const text = settingsOf(env).OUTBOUND_ALLOW ?? "";
  let policy = policies.get(text);
  if (!policy) {
    const parsed = parseOutboundAllow(text);
    if (parsed.invalid.length) logger(env).warn("OUTBOUND_ALLOW entries ignored", { entries: parsed.invalid.join(", ") });
    policy = parsed.policy;
    policies.set(text, policy);
  }
  return policy;
}

/** The policy with one more allowed origin (the deployment's own LLM_BASE_URL). */
export function withAllowedOrigin(policy: OutboundPolicy, url: string): OutboundPolicy {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return policy;
  }
  const port = parsed.port ? Number(parsed.port) : DEFAULT_PORTS[parsed.protocol];
  const entry = parseEntry(port ? `${parsed.host.replace(/:\d+$/, "")}:${port}` : parsed.host);
  return entry ? { allow: [...policy.allow, entry] } : policy;
}
