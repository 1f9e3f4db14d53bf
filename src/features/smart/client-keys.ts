// A client's registered keys: a JWK Set of public keys it signs its assertions with (RS384 or
// ES384). A private key in a registration is refused, not stripped: the client has leaked it.
import type { JWK } from "jose";

export const ASSERTION_ALGS = ["RS384", "ES384"] as const;

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k"] as const;

/** Why `jwks` is not a usable public JWK Set, or undefined when it is. */
export function jwksProblem(jwks: { keys: JWK[] }): string | undefined {
  if (jwks.keys.length === 0) return "the JWK Set has no keys";
  for (const [i, key] of jwks.keys.entries()) {
    const at = `keys[${i}]`;
    if (PRIVATE_MEMBERS.some((m) => m in key)) return `${at} is a private or symmetric key; register public keys only`;
    if (key.use !== undefined && key.use !== "sig") return `${at} has use ${key.use}; it must be sig`;
    if (key.kty === "RSA") {
      if (typeof key.n !== "string" || typeof key.e !== "string") return `${at}: an RSA key needs n and e`;
      if (key.alg !== undefined && key.alg !== "RS384") return `${at} has alg ${key.alg}; RSA keys must be RS384`;
    } else if (key.kty === "EC") {
      if (key.crv !== "P-384" || typeof key.x !== "string" || typeof key.y !== "string") return `${at}: an EC key must be P-384 with x and y (ES384)`;
      if (key.alg !== undefined && key.alg !== "ES384") return `${at} has alg ${key.alg}; EC keys must be ES384`;
    } else {
      return `${at} has kty ${String(key.kty)}; only RSA (RS384) and EC P-384 (ES384) keys are usable`;
    }
  }
  return undefined;
}
