// The token endpoint's logic: client_credentials (SMART Backend Services), authorization_code (a
// user approved the app at authorize/) and refresh_token (rotation with reuse detection). Each
// grant authenticates the client first (client-auth.ts) and must be one the client registered
// for. Plain: it is given the control database, the deployment's env and the URLs, so it is
// testable without HTTP; every refusal is a TokenError (RFC 6749 §5.2).
import { SignJWT } from "jose";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { users } from "../identity";
import { ACCESS_TOKEN_SECONDS, signAccessToken } from "./access-tokens";
import { AuthorizationStore } from "./authorize/authorizations";
import { authenticateClient, type ClientAuthRequest } from "./client-auth";
import { invalidGrant, invalidRequest, TokenError } from "./errors";
import { checkGrant, createGrant, revokeGrant } from "./grants";
import { verifierMatches } from "./pkce";
import { claimRefreshToken, findRefreshToken, issueRefreshToken } from "./refresh/rotation";
import { isSystemScope, narrowScopes, parseScopeParam, refreshKindOf, scopesBeyond } from "./scopes";
import { isSecretOf, sha256Hex } from "./secrets";
import { keysForSigning, privateKeyOf } from "./signing-keys";
import type { ClientApplicationRow, GrantRow, GrantType } from "./tables";

export { ACCESS_TOKEN_SECONDS } from "./access-tokens";
export { TokenError } from "./errors";
export const ID_TOKEN_SECONDS = 300;

export interface TokenRequest extends Omit<ClientAuthRequest, "audiences" | "now"> {
  /** The absolute URL of this token endpoint: a client assertion's required aud. */
  tokenUrl: string;
  /** The org's FHIR base: the access token's iss and aud. */
  fhirBase: string;
  /** smart_style_url's value. */
  styleUrl: string;
  /** The deployment's settings (console session lifetimes, for online_access). */
  env: object;
  now?: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
  patient?: string;
  encounter?: string;
  fhirUser?: string;
  need_patient_banner?: boolean;
  smart_style_url?: string;
}

/** The outcome of a request the audit records: the client, when known, and the grant touched. */
export interface TokenIssued {
  response: TokenResponse;
  clientId: string;
  grantId?: string;
  userId?: string;
}

const GRANTS: readonly GrantType[] = ["authorization_code", "refresh_token", "client_credentials"];

export async function issueToken(control: Database, req: TokenRequest): Promise<TokenIssued> {
  const now = req.now ?? Date.now();
  const grantType = req.form.grant_type;
  if (!grantType) throw invalidRequest("grant_type is required");
  if (!GRANTS.includes(grantType as GrantType)) throw new TokenError(400, "unsupported_grant_type", `grant_type ${grantType} is not supported`);
  const identified = req.form.client_id ?? req.form.client_assertion ?? req.form.client_secret ?? req.authorization;
  const impliedClientId = grantType === "refresh_token" && identified === undefined ? (await findRefreshToken(control, req.orgId, req.form.refresh_token))?.clientId : undefined;
  const { client } = await authenticateClient(control, { ...req, audiences: [req.tokenUrl], now, impliedClientId });
  if (!client.grantTypes.includes(grantType as GrantType)) throw new TokenError(400, "unauthorized_client", `The client is not registered for ${grantType}`, "Bearer", client.id);
  switch (grantType as GrantType) {
    case "client_credentials":
      return clientCredentials(control, req, client, now);
    case "authorization_code":
      return authorizationCode(control, req, client, now);
    case "refresh_token":
      return refreshToken(control, req, client, now);
  }
}

async function clientCredentials(control: Database, req: TokenRequest, client: ClientApplicationRow, now: number): Promise<TokenIssued> {
  if (client.type !== "confidential") throw new TokenError(400, "unauthorized_client", "A public client cannot use client_credentials", "Bearer", client.id);
  // No scope (MedplumClient's startClientLogin sends none): RFC 6749 §3.3 lets the server grant a
  // pre-defined default, here the client's registered system/ scopes, all of what it may ask for.
  const scopes = req.form.scope?.trim() ? parseScopeParam(req.form.scope) : client.scopes.filter(isSystemScope);
  if (!scopes.length) throw new TokenError(400, "invalid_scope", "No scope was requested and the client has no registered system/ scope to grant by default", "Bearer", client.id);
  const beyond = scopesBeyond(scopes, client.scopes);
  if (beyond.length) throw new TokenError(400, "invalid_scope", `The client is not registered for ${beyond.join(", ")}`, "Bearer", client.id);
  const scope = scopes.join(" ");
  const keys = await keysForSigning(control, req.orgId, now);
  // The client's access policy travels in the token (by id: the policy's rules are read when the token is used).
  const accessToken = await signAccessToken(keys, { orgId: req.orgId, fhirBase: req.fhirBase, clientId: client.id, clientName: client.name, scope, accessPolicyId: client.accessPolicyId }, now);
  return { clientId: client.id, response: { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, scope } };
}

async function authorizationCode(control: Database, req: TokenRequest, client: ClientApplicationRow, now: number): Promise<TokenIssued> {
  const { form } = req;
  if (!form.code) throw invalidRequest("code is required");
  if (!form.redirect_uri) throw invalidRequest("redirect_uri is required");
  if (!form.code_verifier) throw invalidRequest("code_verifier is required (PKCE)");
  const store = new AuthorizationStore(control);
  const found = isSecretOf("code", form.code) ? await store.findByCode(req.orgId, await sha256Hex(form.code)) : undefined;
  // Another client's code (or org's) is unknown to this one.
  if (!found || found.clientId !== client.id || !found.codeHash) throw invalidGrant("Unknown authorization code", client.id);
  const grantId = crypto.randomUUID();
  if (!(await store.claimCode(found.id, grantId, now))) {
    // RFC 6749 §4.1.2: a code used twice is refused, and what was issued from it is revoked.
    if (found.grantId) await revokeGrant(control, found.grantId, "authorization code replayed", now);
    throw invalidGrant("The authorization code was used before; the tokens issued from it are revoked", client.id);
  }
  if (found.expiresAt <= Math.floor(now / 1000)) throw invalidGrant("The authorization code has expired", client.id);
  if (found.redirectUri !== form.redirect_uri) throw invalidGrant("redirect_uri differs from the authorization request's", client.id);
  if (!(await verifierMatches(form.code_verifier, found.codeChallenge))) throw invalidGrant("code_verifier does not match the code_challenge", client.id);

  const scopes = found.scopes;
  const refresh = client.grantTypes.includes("refresh_token") ? refreshKindOf(scopes) : undefined;
  const grant = await makeGrant(control, req.env, {
    id: grantId,
    orgId: req.orgId,
    clientId: client.id,
    userId: found.userId,
    sessionHash: refresh === "online" ? found.sessionHash : null,
    scopes,
    patient: found.patient,
    encounter: found.encounter,
    fhirUser: null,
    createdAt: new Date(now).toISOString(),
    revokedAt: null,
    revokedReason: null,
  }, now);
  const response = await tokensFor(control, req, client, grant, scopes, now);
  if (refresh) response.refresh_token = await issueRefreshToken(control, grant, now);
  response.need_patient_banner = !found.ehrLaunch;
  response.smart_style_url = req.styleUrl;
  if (scopes.includes("openid")) response.id_token = await idToken(control, req, client, grant, found.nonce, now);
  return { response, clientId: client.id, grantId: grant.id, userId: grant.userId };
}

/** Stores the grant, with the user's fhirUser as it is now; refused when the user can no longer approve (disabled, session ended). */
async function makeGrant(control: Database, env: object, row: GrantRow, now: number): Promise<GrantRow> {
  const user = await control.select({ fhirUser: users.fhirUser }).from(users).where(and(eq(users.orgId, row.orgId), eq(users.id, row.userId))).get();
  const stored = { ...row, fhirUser: row.scopes.includes("fhirUser") ? (user?.fhirUser ?? null) : null };
  await createGrant(control, stored);
  const check = await checkGrant(control, env, row.orgId, row.id, now);
  if (!check.live) {
    await revokeGrant(control, row.id, check.reason, now);
    throw invalidGrant(`The authorization no longer holds: ${check.reason}`, row.clientId);
  }
  return stored;
}

async function tokensFor(control: Database, req: TokenRequest, client: ClientApplicationRow, grant: GrantRow, scopes: readonly string[], now: number): Promise<TokenResponse> {
  const keys = await keysForSigning(control, req.orgId, now);
  const scope = scopes.join(" ");
  const patient = scopes.some((s) => s === "launch/patient" || s === "launch") ? grant.patient : null;
  const encounter = scopes.some((s) => s === "launch/encounter" || s === "launch") ? grant.encounter : null;
  const fhirUser = scopes.includes("fhirUser") ? grant.fhirUser : null;
  const accessToken = await signAccessToken(
    keys,
    { orgId: req.orgId, fhirBase: req.fhirBase, clientId: client.id, clientName: client.name, scope, user: { grantId: grant.id, userId: grant.userId, patient: grant.patient, encounter: grant.encounter, fhirUser } },
    now,
  );
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    scope,
    ...(patient ? { patient } : {}),
    ...(encounter ? { encounter } : {}),
    ...(fhirUser ? { fhirUser } : {}),
  };
}

/** The OpenID Connect id_token: iss the FHIR base, sub the user, aud the client, fhirUser when granted, the nonce when sent. */
async function idToken(control: Database, req: TokenRequest, client: ClientApplicationRow, grant: GrantRow, nonce: string | null, now: number): Promise<string> {
  const keys = await keysForSigning(control, req.orgId, now);
  const nowSeconds = Math.floor(now / 1000);
  return new SignJWT({ ...(grant.fhirUser ? { fhirUser: grant.fhirUser } : {}), ...(nonce ? { nonce } : {}), auth_time: nowSeconds })
    .setProtectedHeader({ alg: keys.signing.alg, kid: keys.signing.kid, typ: "JWT" })
    .setIssuer(req.fhirBase)
    .setSubject(grant.userId)
    .setAudience(client.id)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + ID_TOKEN_SECONDS)
    .sign(await privateKeyOf(keys.signing));
}

async function refreshToken(control: Database, req: TokenRequest, client: ClientApplicationRow, now: number): Promise<TokenIssued> {
  const { form } = req;
  if (!form.refresh_token) throw invalidRequest("refresh_token is required");
  let grant: GrantRow | undefined;
  let scopes: string[] = [];
  // The grant and the narrowed scopes are checked before the token is used up, so a refused
  // request leaves the client its token; a token used before revokes the grant whatever it asks.
  const rotation = await claimRefreshToken(control, req.orgId, client.id, form.refresh_token, now, async (row) => {
    const check = await checkGrant(control, req.env, req.orgId, row.grantId, now);
    if (!check.live) throw invalidGrant(`The grant has ended (${check.reason})`, client.id);
    const narrowed = narrowScopes(form.scope, check.value.grant.scopes);
    if ("beyond" in narrowed) throw new TokenError(400, "invalid_scope", `The grant does not hold ${narrowed.beyond.join(", ")}: a refresh may narrow the scopes, never widen them`, "Bearer", client.id);
    grant = check.value.grant;
    scopes = narrowed.scopes;
  });
  if (!rotation.ok || !grant) {
    const reason = rotation.ok ? "unknown" : rotation.reason;
    const why = { unknown: "Unknown refresh token", "other-client": "Unknown refresh token", expired: "The refresh token has expired", reused: "The refresh token was used before: the grant is revoked" }[reason];
    throw invalidGrant(why, client.id);
  }
  const response = await tokensFor(control, req, client, grant, scopes, now);
  // RFC 6749 §6: the new refresh token carries the grant's scope, whatever this access token was narrowed to.
  response.refresh_token = await issueRefreshToken(control, grant, now);
  response.smart_style_url = req.styleUrl;
  return { response, clientId: client.id, grantId: grant.id, userId: grant.userId };
}
