// Password hashing: scrypt (@noble/hashes) with a random salt, the parameters kept with the hash
// (`scrypt$N$r$p$salt$hash`, base64url) so they can be raised later without breaking old hashes.
// Compared in constant time (workerd's timingSafeEqual).
import { scryptAsync } from "@noble/hashes/scrypt.js";
import { base64url } from "../../platform/base64url";

/**
 * N=2^14, r=8 (16 MiB), half RFC 7914's interactive-login 2^15: measured in workerd on a loaded
 * 2-core test machine, 2^15 took ~4.4 s of CPU per hash (pure-JS scrypt), too much for a request.
 * Stored with each hash, so it can be raised without breaking old ones.
 */
const PARAMS = { N: 2 ** 14, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
export const MIN_PASSWORD_LENGTH = 12;

function fromBase64url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const key = await scryptAsync(password.normalize("NFKC"), salt, { ...PARAMS, dkLen: KEY_BYTES });
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${base64url(salt)}$${base64url(key)}`;
}

/** Whether `password` matches `stored`; a malformed stored hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = fromBase64url(hash);
  const key = await scryptAsync(password.normalize("NFKC"), fromBase64url(salt), { N: Number(n), r: Number(r), p: Number(p), dkLen: expected.length });
  return key.length === expected.length && crypto.subtle.timingSafeEqual(key, expected);
}

/** A hash no password matches, verified for an unknown login so that it answers as slowly as a known one. */
export const DUMMY_HASH = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${"A".repeat(22)}$${"A".repeat(43)}`;
