// A Google service account's access token by the JWT bearer grant (RFC 7523, as Google's
// "Using OAuth 2.0 for Server to Server Applications" describes it): a JWT {iss: client_email,
// scope, aud: the token endpoint, iat, exp ≤ iat + 1 h} signed RS256 with the key's PKCS#8
// private key (WebCrypto), POSTed as `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`.
// Subscriber management (projects.subscribers) is called with this token, never a user's.
import { type PlatformCall, PlatformError } from "../../platform-adapter";
import { base64url } from "../../../../platform/base64url";
import { failureOf } from "../vendor-http";

/** The scope the discovery document names for projects.subscribers.* */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const LIFETIME_SECONDS = 3600;

export interface ServiceAccountKey {
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId?: string;
  readonly projectId?: string;
}

/** The JSON key file Google issues (`type: service_account`), or undefined when it is not one. */
export function parseServiceAccountKey(text: string | undefined): ServiceAccountKey | undefined {
  if (!text) return undefined;
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const str = (k: string) => (typeof doc[k] === "string" && doc[k] ? (doc[k] as string) : undefined);
  const clientEmail = str("client_email");
  const privateKey = str("private_key");
  if (!clientEmail || !privateKey?.includes("PRIVATE KEY")) return undefined;
  return { clientEmail, privateKey, ...(str("private_key_id") ? { privateKeyId: str("private_key_id") } : {}), ...(str("project_id") ? { projectId: str("project_id") } : {}) };
}

const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

async function importPrivateKey(pem: string): Promise<CryptoKey> {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  try {
    const der = Uint8Array.from(atob(body), (ch) => ch.charCodeAt(0));
    return await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    throw new PlatformError("unauthorized", "the service account's private_key is not a PKCS#8 RSA key");
  }
}

/** The signed assertion (exported for the tests that check its claims). */
export async function signAssertion(key: ServiceAccountKey, audience: string, scope: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
  const header = { alg: "RS256", typ: "JWT", ...(key.privateKeyId ? { kid: key.privateKeyId } : {}) };
  const claims = { iss: key.clientEmail, scope, aud: audience, iat: nowSeconds, exp: nowSeconds + LIFETIME_SECONDS };
  const input = `${encodeJson(header)}.${encodeJson(claims)}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", await importPrivateKey(key.privateKey), new TextEncoder().encode(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/** An access token for `scope`; Google's refusal (bad signature, unknown or disabled account) is `unauthorized`. */
export async function serviceAccountToken(call: PlatformCall, key: ServiceAccountKey, tokenUrl: string, scope = CLOUD_PLATFORM_SCOPE): Promise<string> {
  const assertion = await signAssertion(key, tokenUrl, scope);
  const res = await call.fetch(tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
  });
  if (res.status === 400 || res.status === 401) throw new PlatformError("unauthorized", `the token endpoint refused the service account: ${(await res.text()).slice(0, 200)}`);
  if (!res.ok) throw await failureOf(res, `POST ${new URL(tokenUrl).pathname}`);
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown };
  if (typeof body.access_token !== "string" || !body.access_token) throw new PlatformError("invalid", "the token endpoint answered no access_token");
  return body.access_token;
}
