// Client authentication at the token, introspection and revocation endpoints (RFC 6749 §2.3,
// RFC 7523, SMART App Launch): a confidential client proves itself with its secret
// (client_secret_basic: HTTP Basic; client_secret_post: the form's client_secret) or with a JWT
// signed by a key it registered (private_key_jwt); a public client only names itself (client_id)
// and relies on PKCE. Exactly one method per request; a client must use the one it registered for.
// Another org's client is unknown here, exactly as a client that does not exist.
import { decodeJwt, errors as joseErrors, jwtVerify } from "jose";
import type { Database } from "../../platform/db/client";
import { ApiError } from "../../platform/errors";
import { ASSERTION_ALGS } from "./client-keys";
import { clientKeySet, type KeySetFetch } from "./client-cache";
import { ClientApplicationStore } from "./clients";
import { TokenError } from "./errors";
import { claimJti } from "./jti-store";
import { constantTimeEqual, isSecretOf, sha256Hex } from "./secrets";
import type { ClientApplicationRow } from "./tables";

/** SMART: an assertion's exp is at most five minutes ahead. */
const MAX_ASSERTION_SECONDS = 300;
export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";

export interface ClientAuthRequest {
  orgId: string;
  /** The absolute URL of the endpoint: a client assertion's required aud (the token URL, which SMART names). */
  audiences: string[];
  form: Record<string, string | undefined>;
  authorization: string | undefined;
  /** jwks_uri fetches go through the deployment's outbound guard. */
  fetchKeys: KeySetFetch;
  now: number;
  /**
   * The client a request without any client identification stands for: a refresh token names its
   * client, and a public client need not repeat its client_id on a refresh (RFC 6749 §6; fhirclient
   * sends none). Only a public client may be implied so.
   */
  impliedClientId?: string | undefined;
}

export interface AuthenticatedClient {
  client: ClientApplicationRow;
  method: ClientAuthMethod;
}

const BASIC = /^Basic[ ]+([A-Za-z0-9+/=]+)[ ]*$/i;

/** client_id:client_secret from an Authorization: Basic header (each form-urlencoded, RFC 6749 §2.3.1). */
function basicCredentials(header: string): { id: string; secret: string } | undefined {
  const m = BASIC.exec(header);
  if (!m) return undefined;
  let decoded: string;
  try {
    decoded = atob(m[1]!);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

export async function authenticateClient(control: Database, req: ClientAuthRequest): Promise<AuthenticatedClient> {
  const { form } = req;
  const basic = req.authorization && /^Basic\s/i.test(req.authorization) ? req.authorization : undefined;
  const methods = [basic !== undefined, form.client_secret !== undefined, form.client_assertion !== undefined || form.client_assertion_type !== undefined].filter(Boolean).length;
  if (methods > 1) throw new TokenError(400, "invalid_request", "Use exactly one client authentication method", basic ? "Basic" : "Bearer");
  const store = new ClientApplicationStore(control);
  const find = async (id: string | undefined, scheme: "Basic" | "Bearer") => {
    const client = id ? await store.get(req.orgId, id) : undefined;
    if (client?.status !== "active") throw new TokenError(401, "invalid_client", "Unknown or disabled client", scheme);
    return client;
  };

  if (basic !== undefined) {
    const creds = basicCredentials(basic);
    if (!creds) throw new TokenError(401, "invalid_client", "Malformed HTTP Basic credentials", "Basic");
    if (form.client_id !== undefined && form.client_id !== creds.id) throw new TokenError(401, "invalid_client", "client_id does not match the Basic credentials", "Basic");
    const client = await find(creds.id, "Basic");
    await checkSecret(client, creds.secret, "Basic");
    return { client, method: "client_secret_basic" };
  }
  if (form.client_secret !== undefined) {
    const client = await find(form.client_id, "Bearer");
    await checkSecret(client, form.client_secret, "Bearer");
    return { client, method: "client_secret_post" };
  }
  if (form.client_assertion !== undefined || form.client_assertion_type !== undefined) return { client: await assertionClient(req, find, control), method: "private_key_jwt" };

  // No credential: only a public client may do that.
  const client = await find(form.client_id ?? req.impliedClientId, "Bearer");
  if (client.type !== "public") throw new TokenError(401, "invalid_client", "This client is confidential: it must authenticate", "Bearer", client.id);
  return { client, method: "none" };
}

async function checkSecret(client: ClientApplicationRow, secret: string, scheme: "Basic" | "Bearer"): Promise<void> {
  const ok = client.secretHash !== null && isSecretOf("secret", secret) && constantTimeEqual(await sha256Hex(secret), client.secretHash);
  if (!ok) throw new TokenError(401, "invalid_client", client.secretHash ? "Wrong client secret" : "This client does not authenticate with a secret", scheme, client.id);
}

async function assertionClient(req: ClientAuthRequest, find: (id: string | undefined, scheme: "Basic" | "Bearer") => Promise<ClientApplicationRow>, control: Database): Promise<ClientApplicationRow> {
  const { form, now } = req;
  if (form.client_assertion_type !== JWT_BEARER) throw new TokenError(400, "invalid_request", `client_assertion_type must be ${JWT_BEARER}`);
  const assertion = form.client_assertion;
  if (!assertion) throw new TokenError(400, "invalid_request", "client_assertion is required");
  let clientId: string | undefined;
  try {
    clientId = decodeJwt(assertion).iss;
  } catch {
    throw new TokenError(401, "invalid_client", "client_assertion is not a JWT");
  }
  if (!clientId || (form.client_id !== undefined && form.client_id !== clientId)) throw new TokenError(401, "invalid_client", "The assertion's iss does not name the client");
  const client = await find(clientId, "Bearer");
  const invalid = (why: string) => new TokenError(401, "invalid_client", why, "Bearer", client.id);
  if (!client.jwks && !client.jwksUrl) throw invalid("This client does not authenticate with keys");
  const nowSeconds = Math.floor(now / 1000);
  let claims: { exp?: number; jti?: string };
  try {
    ({ payload: claims } = await jwtVerify(assertion, clientKeySet(client, req.fetchKeys), {
      algorithms: [...ASSERTION_ALGS],
      issuer: client.id,
      subject: client.id,
      audience: req.audiences,
      requiredClaims: ["exp", "jti"],
      currentDate: new Date(now),
      clockTolerance: 5,
    }));
  } catch (e) {
    if (e instanceof ApiError) throw invalid(`The client's jwks_url could not be read: ${e.message}`);
    throw invalid(e instanceof joseErrors.JOSEError ? `client_assertion rejected: ${e.message}` : "client_assertion rejected");
  }
  const exp = claims.exp ?? 0;
  if (exp > nowSeconds + MAX_ASSERTION_SECONDS) throw invalid("The assertion's exp is more than five minutes ahead");
  if (!(await claimJti(control, client.id, claims.jti ?? "", exp, nowSeconds))) throw invalid("The assertion's jti was used before");
  return client;
}
