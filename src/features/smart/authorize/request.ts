// The authorization request's checks (RFC 6749 §4.1.1, SMART App Launch 2, RFC 7636), in the
// order that decides where a refusal goes: until the client and its exact redirect_uri are known,
// a problem is shown to the person (an error page) and never redirected, so the endpoint cannot be
// made an open redirector; after that, each refusal goes back to the app's redirect_uri as
// `error` with the request's `state`. Plain: given the client, it reads no database.
import { challengeProblem } from "../pkce";
import { isAppScope, parseScopeParam, scopesBeyond } from "../scopes";
import type { ClientApplicationRow } from "../tables";

export type AuthorizeErrorCode = "invalid_request" | "unauthorized_client" | "access_denied" | "unsupported_response_type" | "invalid_scope" | "server_error";

export type AuthorizeCheck =
  | { kind: "page"; title: string; message: string }
  | { kind: "redirect"; redirectUri: string; error: AuthorizeErrorCode; description: string; state?: string | undefined }
  | { kind: "ok"; request: AuthorizeRequest };

export interface AuthorizeRequest {
  client: ClientApplicationRow;
  redirectUri: string;
  state: string;
  scopes: string[];
  codeChallenge: string;
  nonce?: string | undefined;
  /** The EHR launch value, when the app was launched from the console. */
  launch?: string | undefined;
}

/** The parameters as sent: each name once (RFC 6749 §3.1 forbids repeats). */
export type AuthorizeParams = Record<string, string[]>;

const MAX_PARAM = 2000;

/** Whether a redirect URI may be registered: absolute https, or http on a loopback host (RFC 8252 §7.3); no fragment. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (url.hash || uri.includes("#")) return `${uri} must not have a fragment`;
  if (url.username || url.password) return `${uri} must not carry credentials`;
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && (url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]")) return undefined;
  return `${uri} must be https (or http on localhost, 127.0.0.1 or [::1])`;
}

const sameBase = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/** `client`: the org's client client_id names, if any (another org's is not). `fhirBase`: what aud must be. */
export function checkAuthorizeRequest(params: AuthorizeParams, client: ClientApplicationRow | undefined, fhirBase: string): AuthorizeCheck {
  const repeated = Object.entries(params).find(([, v]) => v.length > 1)?.[0];
  const one = (name: string) => params[name]?.[0];
  const clientId = one("client_id");
  if (!clientId) return { kind: "page", title: "Missing client_id", message: "The app's request does not say which app it is (client_id)." };
  if (client?.status !== "active") return { kind: "page", title: "Unknown app", message: `No active app with client_id ${clientId} is registered with this organization.` };
  const redirectUri = one("redirect_uri");
  if (!redirectUri) return { kind: "page", title: "Missing redirect_uri", message: "The app's request does not say where to return (redirect_uri)." };
  if (repeated === "redirect_uri" || repeated === "client_id") return { kind: "page", title: "Invalid request", message: `The parameter ${repeated} is repeated.` };
  if (!client.redirectUris.includes(redirectUri)) {
    return { kind: "page", title: "Unregistered redirect_uri", message: `${client.name} did not register ${redirectUri.slice(0, 300)} as a redirect URI (they must match exactly).` };
  }
  const state = one("state");
  const refuse = (error: AuthorizeErrorCode, description: string): AuthorizeCheck => ({ kind: "redirect", redirectUri, error, description, ...(state !== undefined ? { state } : {}) });
  if (repeated) return refuse("invalid_request", `The parameter ${repeated} is repeated`);
  const tooLong = Object.entries(params).find(([, v]) => (v[0] ?? "").length > MAX_PARAM)?.[0];
  if (tooLong) return refuse("invalid_request", `The parameter ${tooLong} is too long`);
  if (one("response_type") !== "code") return refuse("unsupported_response_type", "response_type must be code");
  if (!client.grantTypes.includes("authorization_code")) return refuse("unauthorized_client", "The client is not registered for authorization_code");
  if (!state) return refuse("invalid_request", "state is required");
  const aud = one("aud");
  if (!aud || !sameBase(aud, fhirBase)) return refuse("invalid_request", `aud must be this FHIR server's base URL, ${fhirBase}`);
  const pkce = challengeProblem(one("code_challenge"), one("code_challenge_method"));
  if (pkce) return refuse("invalid_request", pkce);
  const scope = one("scope");
  if (!scope?.trim()) return refuse("invalid_scope", "scope is required");
  const scopes = parseScopeParam(scope);
  const unusable = scopes.filter((s) => !isAppScope(s));
  if (unusable.length) return refuse("invalid_scope", `Not scopes an app may ask a user for: ${unusable.join(", ")}`);
  const beyond = scopesBeyond(scopes, client.scopes);
  if (beyond.length) return refuse("invalid_scope", `The client is not registered for ${beyond.join(", ")}`);
  const launch = one("launch");
  if (launch !== undefined && !scopes.includes("launch")) return refuse("invalid_scope", "An EHR launch (launch parameter) asks for the launch scope");
  if (launch === undefined && scopes.includes("launch")) return refuse("invalid_request", "The launch scope is for an EHR launch: the launch parameter is missing");
  const nonce = one("nonce");
  return { kind: "ok", request: { client, redirectUri, state, scopes, codeChallenge: one("code_challenge")!, nonce, launch } };
}

/** The redirect_uri with the response's parameters added (its own query kept). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}
