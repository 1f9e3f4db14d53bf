// IP address literals as a network stack reads them, and which ranges are not
// public. IPv4 accepts every inet_aton spelling (127.1, 2130706433, 0x7f000001,
// 0177.0.0.1), because that is what a resolver or socket API does with a host name
// made of numbers; WHATWG URL parsing normalises the same forms for http(s).

/** An IPv4 address as an unsigned 32-bit number, or undefined when `host` is not one. */
export function parseIPv4(host: string): number | undefined {
  const text = host.endsWith(".") ? host.slice(0, -1) : host;
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((p) => p === "")) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIPv4Part(part);
    if (n === undefined) return undefined;
    numbers.push(n);
  }
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return undefined;
  return numbers.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + last;
}

function parseIPv4Part(part: string): number | undefined {
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0;
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
  }
  const pattern = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!pattern.test(digits)) return undefined;
  const n = Number.parseInt(digits, radix);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** An IPv6 address as 16 bytes, or undefined. Takes no brackets; a zone (%eth0) is ignored. */
export function parseIPv6(host: string): number[] | undefined {
  const text = host.replace(/%.*$/, "").toLowerCase();
  if (!/^[0-9a-f:.]+$/.test(text) || !text.includes(":")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (const [i, piece] of pieces.entries()) {
      if (piece.includes(".")) {
        // A dotted IPv4 tail is only valid last, and only in strict dotted-quad form.
        if (i !== pieces.length - 1 || !/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return undefined;
        const v4 = parseIPv4(piece);
        if (v4 === undefined) return undefined;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else {
        if (!/^[0-9a-f]{1,4}$/.test(piece)) return undefined;
        out.push(Number.parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

export const formatIPv4 = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 0xff).join(".");

/** Bytes of an IPv4 address, for matching it against CIDR ranges like IPv6 ones. */
export const ipv4Bytes = (n: number): number[] => [24, 16, 8, 0].map((s) => (n >>> s) & 0xff);

/** Whether `bytes` starts with the first `bits` bits of `prefix`. */
export function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  if (bytes.length !== prefix.length) return false;
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] as number) & mask) !== ((prefix[i / 8] as number) & mask)) return false;
  }
  return true;
}

type Range = readonly [prefix: string, bits: number, what: string];

// Everything that is not a public unicast destination (IANA special-purpose registries).
const IPV4_REFUSED: Range[] = [
  ["0.0.0.0", 8, "an unspecified ('this network') address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a carrier-grade NAT address (cloud metadata services live here)"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address (cloud metadata services live here)"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "an IETF protocol address"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a 6to4 relay address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved or broadcast address"],
];

const IPV6_REFUSED: Range[] = [
  ["::", 128, "the unspecified address"],
  ["::1", 128, "a loopback address"],
  ["64:ff9b:1::", 48, "a local-use NAT64 address"],
  ["100::", 64, "a discard-only address"],
  ["2001::", 23, "an IETF protocol address (Teredo, ORCHID, benchmarking)"],
  ["2001:db8::", 32, "a documentation address"],
  ["3fff::", 20, "a documentation address"],
  ["fc00::", 7, "a unique-local (private) address"],
  ["fe80::", 10, "a link-local address"],
  ["fec0::", 10, "a site-local address"],
  ["ff00::", 8, "a multicast address"],
];

/** IPv6 ranges that carry an IPv4 address: what they reach is what the IPv4 address is. */
const IPV6_EMBEDDING: readonly [prefix: string, bits: number, offset: number][] = [
  ["::ffff:0:0", 96, 12], // IPv4-mapped
  ["::ffff:0:0:0", 96, 12], // IPv4-translated (SIIT)
  ["::", 96, 12], // IPv4-compatible (deprecated)
  ["64:ff9b::", 96, 12], // NAT64 well-known prefix
  ["2002::", 16, 2], // 6to4
];

const compile = (ranges: Range[], parse: (s: string) => number[] | undefined) =>
  ranges.map(([prefix, bits, what]) => ({ bytes: parse(prefix) as number[], bits, what }));
const V4 = compile(IPV4_REFUSED, (s) => ipv4Bytes(parseIPv4(s) as number));
const V6 = compile(IPV6_REFUSED, parseIPv6);
const GLOBAL_UNICAST = parseIPv6("2000::") as number[];
const EMBEDDING = IPV6_EMBEDDING.map(([prefix, bits, offset]) => ({ bytes: parseIPv6(prefix) as number[], bits, offset }));

/** Why an address (4 or 16 bytes) is not a public destination; undefined when it is. */
export function nonPublicReason(bytes: readonly number[]): string | undefined {
  if (bytes.length === 4) return V4.find((r) => inPrefix(bytes, r.bytes, r.bits))?.what;
  // Exact :: and ::1 first: they also fall in the IPv4-compatible range.
  const exact = V6.find((r) => r.bits === 128 && inPrefix(bytes, r.bytes, 128));
  if (exact) return exact.what;
  const embedding = EMBEDDING.find((e) => inPrefix(bytes, e.bytes, e.bits));
  if (embedding) {
    const inner = nonPublicReason(bytes.slice(embedding.offset, embedding.offset + 4));
    return inner ? `${inner}, embedded in an IPv6 address` : undefined;
  }
  const range = V6.find((r) => inPrefix(bytes, r.bytes, r.bits));
  if (range) return range.what;
  return inPrefix(bytes, GLOBAL_UNICAST, 3) ? undefined : "outside the IPv6 global unicast range";
}
