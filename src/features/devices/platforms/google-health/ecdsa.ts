// ECDSA P-256 / SHA-256 verification over WebCrypto for `X-HEALTHAPI-SIGNATURE`. Google documents
// the algorithm but neither the key's location nor the signature's encoding, so the key is the
// org's configuration (a PEM SubjectPublicKeyInfo or a JWK) and the signature is read as base64
// or base64url of either the raw r‖s pair (64 bytes) or a DER ECDSA-Sig-Value.
const encoder = new TextEncoder();

function base64Bytes(text: string): Uint8Array | undefined {
  const normal = text.trim().replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return undefined;
  try {
    const bin = atob(normal.padEnd(Math.ceil(normal.length / 4) * 4, "="));
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** A DER ECDSA-Sig-Value (SEQUENCE of two INTEGERs) → the 64-byte r‖s WebCrypto verifies; undefined if malformed. */
export function derToRaw(der: Uint8Array): Uint8Array | undefined {
  if (der[0] !== 0x30 || der.length < 8) return undefined;
  let at = der[1] === 0x81 ? 3 : 2;
  const out = new Uint8Array(64);
  for (const offset of [0, 32]) {
    if (der[at] !== 0x02) return undefined;
    const len = der[at + 1] ?? 0;
    let int = der.subarray(at + 2, at + 2 + len);
    if (int.length !== len) return undefined;
    while (int.length > 32 && int[0] === 0) int = int.subarray(1);
    if (int.length > 32) return undefined;
    out.set(int, offset + 32 - int.length);
    at += 2 + len;
  }
  return at === der.length ? out : undefined;
}

async function importKey(configured: string): Promise<CryptoKey | undefined> {
  const algorithm = { name: "ECDSA", namedCurve: "P-256" };
  try {
    const text = configured.trim();
    if (text.startsWith("{")) return await crypto.subtle.importKey("jwk", JSON.parse(text) as JsonWebKey, algorithm, false, ["verify"]);
    const body = text.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
    const der = base64Bytes(body);
    return der ? await crypto.subtle.importKey("spki", der, algorithm, false, ["verify"]) : undefined;
  } catch {
    return undefined;
  }
}

/** True only when `signature` is a valid ECDSA P-256 SHA-256 signature of `body` under the configured key. */
export async function verifyEcdsaP256(configuredKey: string, signature: string, body: string): Promise<boolean> {
  const key = await importKey(configuredKey);
  const bytes = base64Bytes(signature);
  if (!key || !bytes) return false;
  const raw = bytes.length === 64 ? bytes : derToRaw(bytes);
  if (!raw) return false;
  return crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, raw, encoder.encode(body));
}
