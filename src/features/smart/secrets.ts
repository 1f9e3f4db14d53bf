// The opaque credentials App Launch hands out (client secrets, authorization codes, refresh
// tokens, launch values, the consent form's CSRF token): 256 random bits under a prefix that says
// what each is, stored only as their SHA-256. High-entropy values need no slow hash: nobody can
// guess one to test against the hash.
import { bytesToHex } from "@noble/hashes/utils.js";
import { base64url } from "../../platform/base64url";

export const PREFIXES = { secret: "cs_", code: "ac_", refresh: "rt_", launch: "ln_", csrf: "cf_" } as const;
export type SecretKind = keyof typeof PREFIXES;

export function newSecret(kind: SecretKind): string {
  return PREFIXES[kind] + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Whether `value` has the shape of a `kind` credential (refused before any lookup otherwise). */
export function isSecretOf(kind: SecretKind, value: string | undefined): value is string {
  return value !== undefined && value.length === PREFIXES[kind].length + 43 && value.startsWith(PREFIXES[kind]) && /^[A-Za-z0-9_-]+$/.test(value.slice(3));
}

export async function sha256Hex(value: string): Promise<string> {
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))));
}

/** Equal strings, compared in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}
