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

/** `orgId`: the org the URL names; `fhirBase`: its FHIR base URL (the token's iss and aud). */
export async function verifyAccessToken(control: Database, token: string, orgId: string, fhirBase: string, now = Date.now()): Promise<Principal> {
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
    return {
      orgId,
      keyId: `client:${clientId}`,
      keyName: name,
      role: "service",
      scopes: [],
      client: { id: clientId, name },
      fhirGrant: { scopes },
      ...(typeof payload.access_policy === "string" ? { accessPolicyId: payload.access_policy } : {}),
    };
  } catch (e) {
    if (e instanceof InvalidToken) throw e;
    if (e instanceof joseErrors.JWTExpired) throw new InvalidToken("The access token has expired");
    throw new InvalidToken("The access token is invalid");
  }
}
