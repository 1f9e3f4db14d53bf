// The token endpoint's logic (SMART Backend Services, RFC 6749 §4.4 with RFC 7523 client
// authentication): a client of this org proves itself with a short-lived JWT signed by a key it
// registered, and gets a 5-minute access token signed by the org's key. Plain: it is given the
// control database and the URLs, so it is testable without HTTP.
import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { Database } from "../../platform/db/client";
import { ASSERTION_ALGS } from "./client-keys";
import { clientKeySet } from "./client-cache";
import { ClientApplicationStore } from "./clients";
import { claimJti } from "./jti-store";
import { parseScopeParam, scopesBeyond } from "./scopes";
import { keysForSigning, privateKeyOf } from "./signing-keys";

export const ACCESS_TOKEN_SECONDS = 300;
/** SMART: an assertion's exp is at most five minutes ahead. */
const MAX_ASSERTION_SECONDS = 300;
const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** An RFC 6749 §5.2 error: the status and the body the endpoint answers. */
export class TokenError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type" | "invalid_scope",
    readonly description: string,
  ) {
    super(description);
  }
}

const invalidClient = (why: string) => new TokenError(401, "invalid_client", why);

export interface TokenRequest {
  orgId: string;
  /** The absolute URL of this token endpoint: the assertion's required aud. */
  tokenUrl: string;
  /** The org's FHIR base: the access token's iss and aud. */
  fhirBase: string;
  form: Record<string, string | undefined>;
  now?: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  scope: string;
}

export async function issueToken(control: Database, req: TokenRequest): Promise<TokenResponse> {
  const { form } = req;
  const now = req.now ?? Date.now();
  if (form.grant_type !== "client_credentials") {
    throw new TokenError(400, form.grant_type ? "unsupported_grant_type" : "invalid_request", "grant_type must be client_credentials");
  }
  if (form.client_assertion_type !== JWT_BEARER) throw new TokenError(400, "invalid_request", `client_assertion_type must be ${JWT_BEARER}`);
  const assertion = form.client_assertion;
  if (!assertion) throw new TokenError(400, "invalid_request", "client_assertion is required");
  if (!form.scope?.trim()) throw new TokenError(400, "invalid_request", "scope is required");

  let clientId: string | undefined;
  try {
    clientId = decodeJwt(assertion).iss;
  } catch {
    throw invalidClient("client_assertion is not a JWT");
  }
  if (!clientId || (form.client_id !== undefined && form.client_id !== clientId)) throw invalidClient("The assertion's iss does not name the client");
  // Another org's client is unknown here, exactly as a client that does not exist.
  const client = await new ClientApplicationStore(control).get(req.orgId, clientId);
  if (client?.status !== "active") throw invalidClient("Unknown or disabled client");

  const nowSeconds = Math.floor(now / 1000);
  let claims: { exp?: number; jti?: string };
  try {
    ({ payload: claims } = await jwtVerify(assertion, clientKeySet(client), {
      algorithms: [...ASSERTION_ALGS],
      issuer: client.id,
      subject: client.id,
      audience: req.tokenUrl,
      requiredClaims: ["exp", "jti"],
      currentDate: new Date(now),
      clockTolerance: 5,
    }));
  } catch (e) {
    throw invalidClient(e instanceof joseErrors.JOSEError ? `client_assertion rejected: ${e.message}` : "client_assertion rejected");
  }
  const exp = claims.exp ?? 0;
  if (exp > nowSeconds + MAX_ASSERTION_SECONDS) throw invalidClient("The assertion's exp is more than five minutes ahead");
  if (!(await claimJti(control, client.id, claims.jti ?? "", exp, nowSeconds))) throw invalidClient("The assertion's jti was used before");

  const scopes = parseScopeParam(form.scope);
  const beyond = scopesBeyond(scopes, client.scopes);
  if (beyond.length) throw new TokenError(400, "invalid_scope", `The client is not registered for ${beyond.join(", ")}`);

  const keys = await keysForSigning(control, req.orgId, now);
  const scope = scopes.join(" ");
  // The client's access policy travels in the token (by id: the policy's rules are read when the token is used).
  const accessToken = await new SignJWT({ scope, org: req.orgId, client_name: client.name, ...(client.accessPolicyId ? { access_policy: client.accessPolicyId } : {}) })
    .setProtectedHeader({ alg: keys.signing.alg, kid: keys.signing.kid, typ: "at+jwt" })
    .setIssuer(req.fhirBase)
    .setSubject(client.id)
    .setAudience(req.fhirBase)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + ACCESS_TOKEN_SECONDS)
    .setJti(crypto.randomUUID())
    .sign(await privateKeyOf(keys.signing));
  return { access_token: accessToken, token_type: "bearer", expires_in: ACCESS_TOKEN_SECONDS, scope };
}
