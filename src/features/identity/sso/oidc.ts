// The OpenID Connect wire protocol against an organization's IdP, through oauth4webapi and the
// outbound-guarded fetch (every request: discovery, token, JWKS; a redirect to a refused host is
// refused too): discovery (cached per isolate, with the IdP's JWKS that oauth4webapi caches for
// each discovered server), the authorization URL (code, PKCE S256, state, nonce), and the code
// exchange with the ID token's checks: issuer, audience, expiry, nonce, and its signature against
// the IdP's JWKS. Every failure is an SsoFailure naming its error code (flow.ts audits it).
import * as oauth from "oauth4webapi";
import { ApiError } from "../../../platform/errors";
import type { GuardedFetch } from "../../../platform/outbound/fetch";
import type { SsoErrorCode } from "./errors";
import { SsoFailure } from "./errors";

export interface IdpClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** How long a discovery document is trusted before it is fetched again (the JWKS: oauth4webapi's 5 minutes). */
const DISCOVERY_TTL_MS = 10 * 60_000;
/** Per request to the IdP. */
const IDP_TIMEOUT_MS = 10_000;

const discovered = new Map<string, { as: oauth.AuthorizationServer; until: number }>();

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

function httpOptions(fetch: GuardedFetch, issuer: string) {
  return {
    [oauth.customFetch]: fetch as typeof globalThis.fetch,
    // A plain-http issuer passed the configuration's rule (a host OUTBOUND_ALLOW lists, config.ts).
    [oauth.allowInsecureRequests]: issuer.startsWith("http:"),
    signal: AbortSignal.timeout(IDP_TIMEOUT_MS),
  };
}

/** The IdP's metadata (`/.well-known/openid-configuration`), its `issuer` checked to be exactly `issuer`. */
export async function discover(fetch: GuardedFetch, issuer: string, now = Date.now()): Promise<oauth.AuthorizationServer> {
  const hit = discovered.get(issuer);
  if (hit && hit.until > now) return hit.as;
  try {
    const url = new URL(issuer);
    const as = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { ...httpOptions(fetch, issuer), algorithm: "oidc" }));
    if (!as.authorization_endpoint || !as.token_endpoint || !as.jwks_uri) throw new Error("the discovery document lacks an authorization, token or JWKS endpoint");
    discovered.set(issuer, { as, until: now + DISCOVERY_TTL_MS });
    return as;
  } catch (e) {
    throw new SsoFailure("IDP_ERROR", `discovery of ${issuer} failed: ${messageOf(e)}`);
  }
}

/** Forgets every discovered IdP (a test whose IdP changed its keys). */
export function forgetDiscovered(): void {
  discovered.clear();
}

export const newSecrets = () => ({ state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(), verifier: oauth.generateRandomCodeVerifier() });

export async function authorizationUrl(as: oauth.AuthorizationServer, p: { clientId: string; redirectUri: string; scopes: string[]; state: string; nonce: string; verifier: string }): Promise<string> {
  const url = new URL(as.authorization_endpoint as string);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", p.clientId);
  url.searchParams.set("redirect_uri", p.redirectUri);
  url.searchParams.set("scope", p.scopes.join(" "));
  url.searchParams.set("state", p.state);
  url.searchParams.set("nonce", p.nonce);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(p.verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

/** client_secret_basic (the default of OpenID Connect and most IdPs) unless the IdP offers only client_secret_post. */
function clientAuth(as: oauth.AuthorizationServer, secret: string): oauth.ClientAuth {
  const methods = as.token_endpoint_auth_methods_supported;
  return methods && !methods.includes("client_secret_basic") && methods.includes("client_secret_post") ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
}

function failureOf(e: unknown, stage: string): SsoFailure {
  if (e instanceof SsoFailure) return e;
  if (e instanceof oauth.AuthorizationResponseError) {
    const code: SsoErrorCode = e.error === "access_denied" ? "ACCESS_DENIED" : "IDP_ERROR";
    return new SsoFailure(code, `the IdP answered ${e.error}${e.error_description ? ` (${e.error_description})` : ""}`);
  }
  if (e instanceof oauth.ResponseBodyError) return new SsoFailure("IDP_ERROR", `${stage}: the IdP answered ${e.error}${e.error_description ? ` (${e.error_description})` : ""}`);
  if (e instanceof oauth.WWWAuthenticateChallengeError) return new SsoFailure("IDP_ERROR", `${stage}: the IdP refused the client (HTTP ${e.status})`);
  if (e instanceof ApiError) return new SsoFailure("IDP_ERROR", `${stage}: ${e.message}`);
  if (e instanceof oauth.OperationProcessingError) {
    const claim = (e.cause as { claim?: unknown } | undefined)?.claim;
    if (claim === "nonce") return new SsoFailure("NONCE_MISMATCH", "the ID token's nonce is not the one this sign-in sent");
    return new SsoFailure(stage === "authorization response" ? "IDP_ERROR" : "TOKEN_INVALID", `${stage}: ${e.message}`);
  }
  return new SsoFailure(stage === "ID token signature" ? "TOKEN_INVALID" : "IDP_ERROR", `${stage}: ${messageOf(e)}`);
}

/**
 * The callback's query checked (an `error` from the IdP, the `iss` parameter where the IdP sends
 * one), the code exchanged with the PKCE verifier, and the ID token validated: issuer, audience,
 * expiry, nonce, signature. Answers its claims, and the ID token itself (the logout's id_token_hint). `state` was already matched to its stored row.
 */
export async function exchangeCode(
  fetch: GuardedFetch,
  as: oauth.AuthorizationServer,
  idp: IdpClient,
  p: { query: URLSearchParams; state: string; redirectUri: string; verifier: string; nonce: string },
): Promise<{ claims: oauth.IDToken; idToken: string }> {
  const client: oauth.Client = { client_id: idp.clientId };
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, p.query, p.state);
  } catch (e) {
    throw failureOf(e, "authorization response");
  }
  let response: Response;
  let result: oauth.TokenEndpointResponse;
  try {
    response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth(as, idp.clientSecret), params, p.redirectUri, p.verifier, httpOptions(fetch, idp.issuer));
    result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: p.nonce, requireIdToken: true });
  } catch (e) {
    throw failureOf(e, "token exchange");
  }
  try {
    // oauth4webapi checks the ID token's claims and leaves its signature to the caller (the token
    // came over TLS from the token endpoint); checked against the IdP's JWKS as well, a token
    // endpoint reached by mistake or a tampered channel cannot forge one.
    await oauth.validateApplicationLevelSignature(as, response, httpOptions(fetch, idp.issuer));
  } catch (e) {
    throw failureOf(e, "ID token signature");
  }
  const claims = oauth.getValidatedIdTokenClaims(result);
  if (!claims || !result.id_token) throw new SsoFailure("TOKEN_INVALID", "the token response has no ID token");
  return { claims, idToken: result.id_token };
}
