// API key format and hashing. Shared by the Worker and the admin/dev scripts.
// Keys carry 256 random bits, so a fast SHA-256 is a sufficient at-rest hash
// (slow password hashes guard low-entropy secrets, which these are not).
import { base64url } from "../../../platform/base64url";

export const API_KEY_PREFIX = "cdis_";
const KEY_BYTES = 32;
/** Characters of the key kept in clear so people can tell keys apart in lists. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;
const KEY_PATTERN = /^cdis_[A-Za-z0-9_-]{43}$/;


export function generateApiKey(): string {
  return API_KEY_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Two hex digits per byte value: every request hashes its key, and this is most of the JavaScript time it takes. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

export async function hashApiKey(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(key)));
  let hex = "";
  for (const b of digest) hex += HEX[b];
  return hex;
}
