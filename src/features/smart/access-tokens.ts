// The access tokens this service issues and verifies: JWTs (ES384, RFC 9068's at+jwt) signed with
// the org's key, 5 minutes. A backend service's token (client_credentials) names its client as
// `sub`; a token a user authorized (authorization_code, refresh_token) names the user as `sub`,
// the client as `client_id`, its grant as `gid` and the launch context (patient, encounter,
// fhirUser). Verifying one builds the Principal the FHIR endpoint acts as; a user's token is
// checked against its grant (revoked, user disabled, online session ended: grants.ts, cached per
// isolate LIVE_CACHE_MS). The org's keys are cached per isolate (signing-keys.ts), so the hot path
// reads no database. Only the FHIR endpoint accepts them (not /api).
import { decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify, SignJWT } from "jose";
import type { Database } from "../../platform/db/client";
import type { Principal } from "../../platform/principal";
import { checkGrantCached, type GrantCheck } from "./grants";
import { parseScopeParam } from "./scopes";
import { keysForVerifying, type OrgKeys, privateKeyOf, TOKEN_ALG } from "./signing-keys";

export const ACCESS_TOKEN_SECONDS = 300;

/** Refused: the middleware answers 401 with `WWW-Authenticate: Bearer error="invalid_token"`. */
export class InvalidToken extends Error {}

/** A JWT's shape (three dot-separated base64url parts): never an API key, whose shape is fixed. */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential);
}

export interface AccessTokenClaims {
  orgId: string;
  fhirBase: string;
  clientId: string;
  clientName: string;
  scope: string;
  /** A backend service's access policy, fixed in its token as it is issued (a user's is read with the grant). */
  accessPolicyId?: string | null;
  /** A user's grant: its id, the user, and the launch context. */
  user?: { grantId: string; userId: string; patient?: string | null; encounter?: string | null; fhirUser?: string | null };
}

export async function signAccessToken(keys: OrgKeys, claims: AccessTokenClaims, now: number): Promise<string> {
  const nowSeconds = Math.floor(now / 1000);
  const { user } = claims;
  const payload: JWTPayload = { scope: claims.scope, org: claims.orgId, client_id: claims.clientId, client_name: claims.clientName };
  if (!user && claims.accessPolicyId) payload.access_policy = claims.accessPolicyId;
  if (user) {
    payload.gid = user.grantId;
    if (user.patient) payload.patient = user.patient;
    if (user.encounter) payload.encounter = user.encounter;
    if (user.fhirUser) payload.fhirUser = user.fhirUser;
  }
  return new SignJWT(payload)
    .setProtectedHeader({ alg: keys.signing.alg, kid: keys.signing.kid, typ: "at+jwt" })
    .setIssuer(claims.fhirBase)
    .setSubject(user ? user.userId : claims.clientId)
    .setAudience(claims.fhirBase)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + ACCESS_TOKEN_SECONDS)
    .setJti(crypto.randomUUID())
    .sign(await privateKeyOf(keys.signing));
}

/**
 * Claims this isolate verified, by FHIR base and token, until the token expires: a client sends
 * the same token for up to 5 minutes, and an ES384 verification per request cost a quarter of a
 * read's throughput (bench/auth.ts). Only the signature's answer is kept: a user's token is still
 * checked against its grant on every request (grantOfClaims). Bounded, the oldest dropped first.
 */
const verified = new Map<string, { payload: JWTPayload; until: number }>();
const VERIFIED_MAX = 10_000;

/** The verified claims of a token of this org (signature, iss, aud, exp, org); no grant check. */
export async function verifiedClaims(control: Database, token: string, orgId: string, fhirBase: string, now = Date.now()): Promise<JWTPayload> {
  const cacheKey = `${fhirBase} ${token}`;
  const hit = verified.get(cacheKey);
  if (hit && hit.until > now && hit.payload.org === orgId) return structuredClone(hit.payload);
  if (hit) verified.delete(cacheKey);
  const payload = await verifyClaims(control, token, orgId, fhirBase, now);
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(cacheKey, { payload, until: (payload.exp ?? 0) * 1000 });
  return structuredClone(payload);
}

async function verifyClaims(control: Database, token: string, orgId: string, fhirBase: string, now: number): Promise<JWTPayload> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new InvalidToken("The access token is not a JWT");
  }
  const keys = await keysForVerifying(control, orgId, kid, now);
  // An org that never issued a token has no keys: every token (another org's) is invalid here.
  if (!keys) throw new InvalidToken("The access token was not issued by this server for this organization");
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys.verify, {
      algorithms: [TOKEN_ALG],
      typ: "at+jwt",
      issuer: fhirBase,
      audience: fhirBase,
      requiredClaims: ["exp", "sub", "scope"],
      currentDate: new Date(now),
    }));
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) throw new InvalidToken("The access token has expired");
    throw new InvalidToken("The access token is invalid");
  }
  if (payload.org !== orgId) throw new InvalidToken("The access token is for another organization");
  return payload;
}

const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

/** The grant a user's token names, checked (cached); undefined for a backend service's token. */
export async function grantOfClaims(control: Database, env: object, orgId: string, payload: JWTPayload, now = Date.now()): Promise<GrantCheck | undefined> {
  const gid = str(payload.gid);
  if (!gid) return undefined;
  return checkGrantCached(control, env, orgId, gid, now);
}

/** `orgId`: the org the URL names; `fhirBase`: its FHIR base URL (the token's iss and aud). */
export async function verifyAccessToken(control: Database, env: object, token: string, orgId: string, fhirBase: string, now = Date.now()): Promise<Principal> {
  const payload = await verifiedClaims(control, token, orgId, fhirBase, now);
  const scopes = typeof payload.scope === "string" ? parseScopeParam(payload.scope) : [];
  const grant = await grantOfClaims(control, env, orgId, payload, now);
  if (!grant) {
    const clientId = payload.sub ?? "";
    const name = str(payload.client_name) ?? clientId;
    const accessPolicyId = str(payload.access_policy);
    return { orgId, keyId: `client:${clientId}`, keyName: name, role: "service", scopes: [], client: { id: clientId, name }, fhirGrant: { scopes }, ...(accessPolicyId ? { accessPolicyId } : {}) };
  }
  if (!grant.live) throw new InvalidToken(`The access token's authorization has ended (${grant.reason})`);
  const { user, client } = grant.value;
  const patient = str(payload.patient);
  const encounter = str(payload.encounter);
  const fhirUser = user.fhirUser ?? undefined;
  // The person's access policy, else the app's: read with the grant (cached LIVE_CACHE_MS), so a change applies within that.
  const accessPolicyId = user.accessPolicyId ?? client.accessPolicyId ?? undefined;
  return {
    orgId,
    keyId: `client:${client.id}`,
    keyName: client.name,
    // The user's role today: the token grants no more than the person may (role ∧ scopes ∧ consent).
    role: user.role,
    scopes: [],
    user: { id: user.id, login: user.email, name: user.name, ...(fhirUser ? { fhirUser } : {}) },
    client: { id: client.id, name: client.name },
    fhirGrant: { scopes, ...(patient ? { patient } : {}), ...(encounter ? { encounter } : {}) },
    ...(accessPolicyId ? { accessPolicyId } : {}),
  };
}
