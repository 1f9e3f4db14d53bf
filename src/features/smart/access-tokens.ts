// Verifies an access token this service issued (token.ts) into the Principal it acts as. Only
// the FHIR endpoint accepts them (the auth middleware is handed this on /fhir, not on /api).
// The org's keys are cached per isolate (signing-keys.ts), so the hot path reads no database.
import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from "jose";
import type { Database } from "../../platform/db/client";
import type { Principal } from "../../platform/principal";
import { parseScopeParam } from "./scopes";
import { keysForVerifying, TOKEN_ALG } from "./signing-keys";

/** Refused: the middleware answers 401 with `WWW-Authenticate: Bearer error="invalid_token"`. */
export class InvalidToken extends Error {}

/** A JWT's shape (three dot-separated base64url parts): never an API key, whose shape is fixed. */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential);
}

/**
 * Tokens this isolate verified, by FHIR base and token, until they expire: a client sends the same
 * token for up to 5 minutes, and an ES384 verification per request cost a quarter of a read's
 * throughput (bench/auth.ts). Nothing revokes a token before it expires (docs/smart.md), so the
 * cache changes no answer; it is bounded, the oldest entry dropped first.
 */
const verified = new Map<string, { principal: Principal; until: number }>();
const VERIFIED_MAX = 10_000;

/** `orgId`: the org the URL names; `fhirBase`: its FHIR base URL (the token's iss and aud). */
export async function verifyAccessToken(control: Database, token: string, orgId: string, fhirBase: string, now = Date.now()): Promise<Principal> {
  const cacheKey = `${fhirBase} ${token}`;
  const hit = verified.get(cacheKey);
  if (hit && hit.until > now && hit.principal.orgId === orgId) return structuredClone(hit.principal);
  if (hit) verified.delete(cacheKey);
  const { principal, until } = await verifyUncached(control, token, orgId, fhirBase, now);
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(cacheKey, { principal, until });
  return structuredClone(principal);
}

async function verifyUncached(control: Database, token: string, orgId: string, fhirBase: string, now: number): Promise<{ principal: Principal; until: number }> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new InvalidToken("The access token is not a JWT");
  }
  const keys = await keysForVerifying(control, orgId, kid, now);
  // An org that never issued a token has no keys: every token (another org's) is invalid here.
  if (!keys) throw new InvalidToken("The access token was not issued by this server for this organization");
  try {
    const { payload } = await jwtVerify(token, keys.verify, {
      algorithms: [TOKEN_ALG],
      issuer: fhirBase,
      audience: fhirBase,
      requiredClaims: ["exp", "sub", "scope"],
      currentDate: new Date(now),
    });
    if (payload.org !== orgId) throw new InvalidToken("The access token is for another organization");
    const clientId = payload.sub ?? "";
    const name = typeof payload.client_name === "string" ? payload.client_name : clientId;
    const scopes = typeof payload.scope === "string" ? parseScopeParam(payload.scope) : [];
    const principal: Principal = {
      orgId,
      keyId: `client:${clientId}`,
      keyName: name,
      role: "service",
      scopes: [],
      client: { id: clientId, name },
      fhirGrant: { scopes },
    };
    return { principal, until: (payload.exp ?? 0) * 1000 };
  } catch (e) {
    if (e instanceof InvalidToken) throw e;
    if (e instanceof joseErrors.JWTExpired) throw new InvalidToken("The access token has expired");
    throw new InvalidToken("The access token is invalid");
  }
}
