// What the Applications page checks as an administrator types, with the service's own rules
// (src/features/smart/client-keys.ts and scopes.ts, import-free so the console bundles them): a
// pasted JWK Set and the scopes are judged exactly as registration will judge them.
import { jwksProblem } from "../../../src/features/smart/client-keys";
import { isSystemScope } from "../../../src/features/smart/scopes";

/** The registration's limits on a JWK Set (src/features/smart/schemas.ts). */
const MAX_KEYS = 10;
const MAX_JWKS_CHARS = 32_768;

export type JwksCheck = { ok: true; jwks: { keys: Record<string, unknown>[] }; summary: string } | { ok: false; problem: string };

/** The pasted text as a usable public JWK Set, or why it is not one. */
export function checkJwks(text: string): JwksCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `Not JSON: ${(e as Error).message}` };
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !Array.isArray(keys)) return { ok: false, problem: 'A JWK Set is an object with a "keys" array: {"keys": [{"kty": "RSA", …}]}' };
  if (keys.length > MAX_KEYS) return { ok: false, problem: `At most ${MAX_KEYS} keys (this set has ${keys.length})` };
  if (JSON.stringify(parsed).length > MAX_JWKS_CHARS) return { ok: false, problem: `At most ${MAX_JWKS_CHARS} characters of JSON` };
  const notObject = keys.findIndex((k) => typeof k !== "object" || k === null || Array.isArray(k) || typeof (k as { kty?: unknown }).kty !== "string");
  if (notObject >= 0) return { ok: false, problem: `keys[${notObject}] is not a JWK with a kty` };
  const problem = jwksProblem(parsed as Parameters<typeof jwksProblem>[0]);
  if (problem) return { ok: false, problem };
  return { ok: true, jwks: parsed as { keys: Record<string, unknown>[] }, summary: keysSummary(keys as Record<string, unknown>[]) };
}

/** "2 keys: RSA (kid a1), EC P-384 (kid b2)". */
export function keysSummary(keys: readonly Record<string, unknown>[]): string {
  const one = (k: Record<string, unknown>) => `${String(k.kty)}${k.kty === "EC" ? ` ${String(k.crv)}` : ""}${typeof k.kid === "string" ? ` (kid ${k.kid})` : ""}`;
  return `${keys.length} ${keys.length === 1 ? "key" : "keys"}: ${keys.map(one).join(", ")}`;
}

/** The scopes typed (one per line, or separated by spaces or commas), deduplicated in order. */
export function parseScopes(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** Scopes registration refuses: not system/<Type|*>.<read|write|*|cruds subset>. */
export const badScopes = (scopes: readonly string[]) => scopes.filter((s) => !isSystemScope(s));
