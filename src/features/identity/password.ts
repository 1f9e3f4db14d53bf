// Password hashing: scrypt (workerd's and Node's native node:crypto, BoringSSL/OpenSSL) with a
// random salt, the parameters kept with the hash (`scrypt$N$r$p$salt$hash`, base64url) so they can
// be raised without breaking old hashes: a sign-in with a hash made under weaker parameters is
// rehashed (`needsRehash`). Compared in constant time (workerd's timingSafeEqual).
import { scrypt } from "node:crypto";
import { base64url } from "../../platform/base64url";

/**
 * N=2^15, r=8, p=1: RFC 7914's interactive-login parameters, 32 MiB per hash (Workers allow 128 MiB
 * an isolate). Native scrypt takes ~80 ms of CPU for it in workerd on the 2-core test machine; the
 * pure-JS scrypt used before needed ~1 s for half of it (N=2^14), whose hashes still verify.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Refuses parameters a stored hash could use to make one check cost more than this (memory = 128·N·r). */
const MAX_MEMORY = 64 * 1024 * 1024;
export const MIN_PASSWORD_LENGTH = 12;

function fromBase64url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

function derive(password: string, salt: Uint8Array, params: { N: number; r: number; p: number }, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, length, { ...params, maxmem: MAX_MEMORY }, (err, key) => (err ? reject(err) : resolve(new Uint8Array(key)))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const key = await derive(password, salt, PARAMS, KEY_BYTES);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${base64url(salt)}$${base64url(key)}`;
}

/** Whether `password` matches `stored`; a malformed stored hash (or one with out-of-bounds parameters) matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = fromBase64url(hash);
  const key = await derive(password, fromBase64url(salt), { N: Number(n), r: Number(r), p: Number(p) }, expected.length).catch(() => undefined);
  return key !== undefined && key.length === expected.length && crypto.subtle.timingSafeEqual(key, expected);
}

/** Whether a (verified) stored hash was made under weaker parameters than today's, so it should be replaced. */
export function needsRehash(stored: string): boolean {
  const [, n, r, p] = stored.split("$");
  return Number(n) < PARAMS.N || Number(r) < PARAMS.r || Number(p) < PARAMS.p;
}

/** A hash no password matches, verified for an unknown login so that it answers as slowly as a known one. */
export const DUMMY_HASH = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${"A".repeat(22)}$${"A".repeat(43)}`;
