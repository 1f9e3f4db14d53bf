// Deterministic UUIDs (RFC 9562 version 5: SHA-1 of a namespace and a name), in
// plain synchronous TypeScript so that conversion stays a pure function; the
// Web Crypto digest is asynchronous and would make every caller async.

const encoder = new TextEncoder();

function rotl(x: number, n: number): number {
  return (x << n) | (x >>> (32 - n));
}

const W = new Int32Array(80);

/** SHA-1 digest of bytes (20 bytes). Not for security: only for name-based UUIDs. */
export function sha1(data: Uint8Array): Uint8Array {
  const ml = data.length;
  const padded = ((ml + 9 + 63) >> 6) << 6;
  const buf = new Uint8Array(padded);
  buf.set(data);
  buf[ml] = 0x80;
  const bits = ml * 8;
  const hi = Math.floor(bits / 0x100000000);
  buf[padded - 8] = hi >>> 24;
  buf[padded - 7] = hi >>> 16;
  buf[padded - 6] = hi >>> 8;
  buf[padded - 5] = hi;
  buf[padded - 4] = bits >>> 24;
  buf[padded - 3] = bits >>> 16;
  buf[padded - 2] = bits >>> 8;
  buf[padded - 1] = bits;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  const w = W;
  for (let off = 0; off < padded; off += 64) {
    for (let i = 0; i < 16; i++) {
      const o = off + i * 4;
      w[i] = (buf[o]! << 24) | (buf[o + 1]! << 16) | (buf[o + 2]! << 8) | buf[o + 3]!;
    }
    for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!, 1);
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      let f: number;
      let k: number;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc | 0;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6 | 0;
      }
      const t = (rotl(a, 5) + f + e + k + w[i]!) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const out = new Uint8Array(20);
  const hs = [h0, h1, h2, h3, h4];
  for (let i = 0; i < 5; i++) {
    const h = hs[i]!;
    out[i * 4] = h >>> 24;
    out[i * 4 + 1] = h >>> 16;
    out[i * 4 + 2] = h >>> 8;
    out[i * 4 + 3] = h;
  }
  return out;
}

function parseUuid(uuid: string): Uint8Array {
  const hex = uuid.replace(/-/g, "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new RangeError(`not a UUID: ${uuid}`);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** RFC 9562 UUIDv5 of `name` in `namespace` (a UUID string). */
let lastNamespace = "";
let lastNamespaceBytes: Uint8Array = new Uint8Array(16);

export function uuidV5(name: string, namespace: string): string {
  if (namespace !== lastNamespace) {
    lastNamespaceBytes = parseUuid(namespace);
    lastNamespace = namespace;
  }
  const ns = lastNamespaceBytes;
  const nameBytes = encoder.encode(name);
  const data = new Uint8Array(ns.length + nameBytes.length);
  data.set(ns);
  data.set(nameBytes, ns.length);
  const h = sha1(data);
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  let s = "";
  for (let i = 0; i < 16; i++) {
    s += HEX[h[i]!];
    if (i === 3 || i === 5 || i === 7 || i === 9) s += "-";
  }
  return s;
}

/** The RFC 9562 URL namespace. */
export const URL_NAMESPACE = "6ba7b811-9dad-11d1-80b4-00c04fd430c8";
