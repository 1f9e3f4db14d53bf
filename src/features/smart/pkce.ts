// PKCE (RFC 7636) as SMART App Launch 2 requires it: S256 only (plain is refused), a challenge of
// 43 base64url characters (a SHA-256), a verifier of 43 to 128 unreserved characters.
import { base64url } from "../../platform/base64url";
import { constantTimeEqual } from "./secrets";

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Why the authorize request's PKCE parameters are refused, or undefined when they are usable. */
export function challengeProblem(challenge: string | undefined, method: string | undefined): string | undefined {
  if (!challenge) return "code_challenge is required (PKCE, S256)";
  if (method !== "S256") return method === "plain" || method === undefined ? "code_challenge_method must be S256 (plain is not supported)" : `unsupported code_challenge_method ${method}`;
  if (!CHALLENGE.test(challenge)) return "code_challenge must be the base64url SHA-256 of the verifier (43 characters)";
  return undefined;
}

export async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** Whether `verifier` is well formed and hashes to `challenge`. */
export async function verifierMatches(verifier: string | undefined, challenge: string): Promise<boolean> {
  if (!verifier || !VERIFIER.test(verifier)) return false;
  return constantTimeEqual(await s256(verifier), challenge);
}
