// HMAC signatures and constant-time comparison over WebCrypto, for every vendor's scheme.
const encoder = new TextEncoder();

/**
 * Imported HMAC keys by hash and secret: every delivery of a platform is checked with the same
 * secret, so the import is done once per isolate, not per request. Bounded: the oldest goes first.
 */
const importedKeys = new Map<string, Promise<CryptoKey>>();
const MAX_IMPORTED_KEYS = 256;

function hmacKey(hash: "SHA-256" | "SHA-1", secret: string): Promise<CryptoKey> {
  const id = `${hash}\u0000${secret}`;
  let key = importedKeys.get(id);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash }, false, ["sign"]);
    key.catch(() => importedKeys.delete(id));
    importedKeys.set(id, key);
    if (importedKeys.size > MAX_IMPORTED_KEYS) importedKeys.delete(importedKeys.keys().next().value as string);
  }
  return key;
}

async function hmac(hash: "SHA-256" | "SHA-1", secret: string, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(hash, secret), encoder.encode(message)));
}

export const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
export const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

export const hmacSha256Hex = async (secret: string, message: string) => toHex(await hmac("SHA-256", secret, message));
export const hmacSha256Base64 = async (secret: string, message: string) => toBase64(await hmac("SHA-256", secret, message));

export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** Equal strings, compared without an early exit on the first difference (length is not secret). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** A timestamp header within `toleranceSeconds` of now (replay window). */
export function freshTimestamp(epochMs: number, now: Date, toleranceSeconds: number): boolean {
  return Number.isFinite(epochMs) && Math.abs(now.getTime() - epochMs) <= toleranceSeconds * 1000;
}

/** The scheme Polar, Suunto and a Garmin signing proxy share: `header` = hex HMAC-SHA256(secret, raw body). */
export async function verifyHexBodySignature(headers: Headers, header: string, secret: string | undefined, body: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const signature = headers.get(header);
  if (!signature) return { ok: false, reason: `missing ${header}` };
  if (!secret) return { ok: false, reason: "no webhook secret configured" };
  return constantTimeEqual(signature.toLowerCase(), await hmacSha256Hex(secret, body)) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}
