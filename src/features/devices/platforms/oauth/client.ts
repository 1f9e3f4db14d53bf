// The OAuth 2.0 wire protocol against a vendor, through oauth4webapi (spec-exact token
// response checks, PKCE, client authentication) and the outbound-guarded fetch.
import * as oauth from "oauth4webapi";
import { PlatformError, type PlatformCredentials, type PlatformTokens } from "../../platform-adapter";
import { badRequest } from "../../../../platform/errors";
import { type OAuthSpec, urlOf } from "../platform";
import { basicAuth } from "../vendor-http";

export interface Endpoints {
  readonly authorize: string;
  readonly token: string;
  readonly revoke?: string;
}

/** The vendor's endpoints, each overridable per org (so a mock or a regional host is configuration). */
export function endpointsOf(spec: OAuthSpec, credentials: PlatformCredentials): Endpoints {
  const revoke = spec.revokeUrl ? urlOf(credentials, "revoke_url", spec.revokeUrl) : undefined;
  return {
    authorize: urlOf(credentials, "authorize_url", spec.authorizeUrl),
    token: urlOf(credentials, "token_url", spec.tokenUrl),
    ...(revoke ? { revoke } : {}),
  };
}

function server(e: Endpoints): oauth.AuthorizationServer {
  return { issuer: new URL(e.token).origin, authorization_endpoint: e.authorize, token_endpoint: e.token, ...(e.revoke ? { revocation_endpoint: e.revoke } : {}) };
}

/**
 * Basic client authentication as Polar and Suunto document it (`curl --user id:secret`):
 * oauth4webapi's ClientSecretBasic form-encodes id and secret first (RFC 6749 2.3.1), which
 * those servers do not decode, so "-" in a client id would arrive as "%2D".
 */
const plainBasic =
  (id: string, secret: string): oauth.ClientAuth =>
  (_as, _client, _body, headers) => {
    headers.set("authorization", basicAuth(id, secret));
  };

function client(spec: OAuthSpec, credentials: PlatformCredentials): { client: oauth.Client; auth: oauth.ClientAuth } {
  if (!credentials.clientId || !credentials.clientSecret) throw badRequest("The platform's client id and secret are not configured for this organization");
  const auth = spec.clientAuth === "basic" ? plainBasic(credentials.clientId, credentials.clientSecret) : oauth.ClientSecretPost(credentials.clientSecret);
  return { client: { client_id: credentials.clientId }, auth };
}

const options = (e: Endpoints, fetch: typeof globalThis.fetch) => ({
  [oauth.customFetch]: fetch,
  // A plain-http endpoint is only reachable if the outbound guard lets it through (local mocks).
  [oauth.allowInsecureRequests]: e.token.startsWith("http:"),
});

export const newVerifier = () => oauth.generateRandomCodeVerifier();
export const newState = () => oauth.generateRandomState();

export async function authorizationUrl(spec: OAuthSpec, credentials: PlatformCredentials, p: { state: string; redirectUri: string; verifier?: string }): Promise<string> {
  const url = new URL(endpointsOf(spec, credentials).authorize);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", credentials.clientId ?? "");
  url.searchParams.set("redirect_uri", p.redirectUri);
  if (spec.scopes.length) url.searchParams.set("scope", spec.scopes.join(" "));
  url.searchParams.set("state", p.state);
  if (spec.pkce && p.verifier) {
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(p.verifier));
    url.searchParams.set("code_challenge_method", "S256");
  }
  for (const [k, v] of Object.entries(spec.extraAuthorizeParams ?? {})) url.searchParams.set(k, v);
  return url.toString();
}

export interface TokenResult {
  readonly tokens: PlatformTokens;
  /** The whole token response (vendor extras: Polar `x_user_id`, Fitbit `user_id`). */
  readonly raw: Readonly<Record<string, unknown>>;
}

function tokensOf(response: oauth.TokenEndpointResponse, previousRefresh?: string): TokenResult {
  const expiresIn = typeof response.expires_in === "number" ? response.expires_in : undefined;
  const refresh = response.refresh_token ?? previousRefresh;
  return {
    tokens: {
      accessToken: response.access_token,
      ...(refresh ? { refreshToken: refresh } : {}),
      ...(expiresIn !== undefined ? { expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString() } : {}),
      ...(response.scope ? { scope: response.scope } : {}),
    },
    raw: response as Readonly<Record<string, unknown>>,
  };
}

/** The vendor's OAuth error as a PlatformError (`invalid_grant` → revoked: the grant is gone). */
function platformErrorOf(e: unknown): PlatformError {
  if (e instanceof PlatformError) return e;
  if (e instanceof oauth.ResponseBodyError) {
    const kind = e.error === "invalid_grant" ? "revoked" : e.status === 429 ? "rate_limited" : e.status >= 500 ? "unavailable" : "unauthorized";
    return new PlatformError(kind, `token endpoint: ${e.error}${e.error_description ? ` (${e.error_description})` : ""}`);
  }
  if (e instanceof oauth.WWWAuthenticateChallengeError) return new PlatformError("unauthorized", `token endpoint: HTTP ${e.status}`);
  if (e instanceof oauth.OperationProcessingError) return new PlatformError("invalid", `token endpoint: ${e.message}`);
  return new PlatformError("unavailable", `token endpoint: ${e instanceof Error ? e.message : String(e)}`);
}

/** `callback` is the redirect's query; its state was already checked against the stored one. */
export async function exchangeCode(spec: OAuthSpec, credentials: PlatformCredentials, fetch: typeof globalThis.fetch, p: { callback: URLSearchParams; redirectUri: string; verifier?: string }): Promise<TokenResult> {
  const e = endpointsOf(spec, credentials);
  const { client: c, auth } = client(spec, credentials);
  try {
    const params = oauth.validateAuthResponse(server(e), c, p.callback, oauth.skipStateCheck);
    const res = await oauth.authorizationCodeGrantRequest(server(e), c, auth, params, p.redirectUri, spec.pkce && p.verifier ? p.verifier : oauth.nopkce, options(e, fetch));
    return tokensOf(await oauth.processAuthorizationCodeResponse(server(e), c, res));
  } catch (err) {
    throw platformErrorOf(err);
  }
}

export async function refreshTokens(spec: OAuthSpec, credentials: PlatformCredentials, fetch: typeof globalThis.fetch, refreshToken: string): Promise<TokenResult> {
  const e = endpointsOf(spec, credentials);
  const { client: c, auth } = client(spec, credentials);
  try {
    const res = await oauth.refreshTokenGrantRequest(server(e), c, auth, refreshToken, options(e, fetch));
    // A vendor that does not rotate answers without a refresh_token: the old one stays valid.
    return tokensOf(await oauth.processRefreshTokenResponse(server(e), c, res), refreshToken);
  } catch (err) {
    throw platformErrorOf(err);
  }
}

/** RFC 7009 revocation where the vendor has it (true once it answered); false when it has none (a vendor without it may revoke in `beforeUnlink`). */
export async function revokeToken(spec: OAuthSpec, credentials: PlatformCredentials, fetch: typeof globalThis.fetch, token: string): Promise<boolean> {
  const e = endpointsOf(spec, credentials);
  if (!e.revoke) return false;
  const { client: c, auth } = client(spec, credentials);
  try {
    await oauth.processRevocationResponse(await oauth.revocationRequest(server(e), c, auth, token, options(e, fetch)));
    return true;
  } catch (err) {
    throw platformErrorOf(err);
  }
}
