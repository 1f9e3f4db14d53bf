// AES-GCM encryption of connector credentials at rest. The key comes from the
// CONNECTOR_ENCRYPTION_KEY secret; only with DEV_MODE=true (npm start, tests)
// does a fixed development key stand in, so production never stores them weakly.
import type { Env } from "../../platform/env";
import { ApiError } from "../../platform/errors";
import { settingsOf } from "../../platform/settings";

const DEV_KEY_MATERIAL = "cdis-development-connector-key-not-for-production";
const keyCache = new Map<string, Promise<CryptoKey>>();

function keyMaterial(env: Env): string {
  const settings = settingsOf(env);
  if (settings.CONNECTOR_ENCRYPTION_KEY) return settings.CONNECTOR_ENCRYPTION_KEY;
  if (settings.DEV_MODE === "true") return DEV_KEY_MATERIAL;
  throw new ApiError(
    503,
    "CONNECTOR_KEY_MISSING",
    "CONNECTOR_ENCRYPTION_KEY is not set: connector credentials cannot be stored or read",
  );
}

/** Any secret string works: it is hashed to a 256-bit AES key. */
function aesKey(material: string): Promise<CryptoKey> {
  let key = keyCache.get(material);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", new TextEncoder().encode(material))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
    keyCache.set(material, key);
  }
  return key;
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** `aad` binds the ciphertext to its row (org and connector id), so it cannot be moved between rows. */
export async function encryptCredentials(env: Env, aad: string, credentials: Record<string, string>): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(aad) },
    await aesKey(keyMaterial(env)),
    new TextEncoder().encode(JSON.stringify(credentials)),
  );
  const out = new Uint8Array(iv.length + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), iv.length);
  return toBase64(out);
}

export async function decryptCredentials(env: Env, aad: string, sealed: string): Promise<Record<string, string>> {
  const bytes = fromBase64(sealed);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: new TextEncoder().encode(aad) },
    await aesKey(keyMaterial(env)),
    bytes.slice(12),
  );
  return JSON.parse(new TextDecoder().decode(plain)) as Record<string, string>;
}

/** The shortest credential value whose display form shows its last four characters (a quarter of it at most). */
export const HINT_MIN_LENGTH = 16;

/**
 * Display form of a credential, so an operator can tell which secret is configured without it
 * being returned: "****" and its last four characters when it has at least HINT_MIN_LENGTH
 * (as Stripe shows an API key's), else "****" alone (a hint would give away too much of it).
 */
export function maskCredentials(credentials: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, v.length >= HINT_MIN_LENGTH ? `****${v.slice(-4)}` : "****"]));
}
