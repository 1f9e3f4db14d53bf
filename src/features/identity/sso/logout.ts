// Signing out of a console session that single sign-on opened also ends the person's session at
// the identity provider, as OpenID Connect RP-Initiated Logout 1.0 describes, when the IdP offers
// it (an `end_session_endpoint` in its discovery document): the sign-in keeps the ID token with
// the session (sealed, sso_sessions), and the sign-out answers the IdP's end-session URL with it as
// `id_token_hint`, the client id and the post-logout redirect URI, for the console to send the
// browser to. The console session is over either way, before the IdP is asked anything.
import { and, eq, lt } from "drizzle-orm";
import type { Env } from "../../../platform/env";
import { notFound } from "../../../platform/errors";
import { controlStore, type OrgData } from "../../../platform/org-data";
import { outboundFetch } from "../../../platform/outbound/fetch";
import { decryptCredentials, encryptCredentials } from "../../connectors";
import { ConsoleSessionStore, hashSessionId } from "../../tenancy";
import { ssoSessions } from "../tables";
import { getIdentityProvider, postLogoutRedirectUri } from "./config";
import { SsoFailure } from "./errors";
import { discover } from "./oidc";

const tokenAad = (orgId: string, sessionHash: string) => `sso-session:${orgId}:${sessionHash}`;

export interface SsoSession {
  sessionId: string;
  orgId: string;
  idpId: string;
  idToken: string;
  /** When the console session's maximum lifetime ends (epoch ms). */
  expiresAt: number;
}

/** Keeps what ends the IdP's session at sign-out with the console session a single sign-on opened. */
export async function rememberSsoSession(env: Env, s: SsoSession, now = Date.now()): Promise<void> {
  const control = controlStore(env);
  const sessionHash = await hashSessionId(s.sessionId);
  // Records of this organization's sessions past their lifetime go as new ones come.
  await control.delete(ssoSessions).where(and(eq(ssoSessions.orgId, s.orgId), lt(ssoSessions.expiresAt, new Date(now).toISOString())));
  await control.insert(ssoSessions).values({
    sessionHash,
    orgId: s.orgId,
    idpId: s.idpId,
    idTokenEnc: await encryptCredentials(env, tokenAad(s.orgId, sessionHash), { id_token: s.idToken }),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(s.expiresAt).toISOString(),
  });
}

/**
 * Ends the console session (`idHash`) and answers where the browser goes to end the IdP's session
 * too: the IdP's end-session URL, or null (the session was not opened by single sign-on, the IdP
 * offers no logout, the identity provider was removed, or its discovery fails now).
 */
export async function signOutWithIdp(data: OrgData, idHash: string | undefined, publicBase: string, now = Date.now()): Promise<string | null> {
  if (!idHash) throw notFound("No console session: this request was authenticated with an API key", "NO_CONSOLE_SESSION");
  await new ConsoleSessionStore(data.control).revoke(idHash, new Date(now).toISOString());
  const row = await data.control
    .delete(ssoSessions)
    .where(and(eq(ssoSessions.orgId, data.orgId), eq(ssoSessions.sessionHash, idHash)))
    .returning()
    .get();
  if (!row || Date.parse(row.expiresAt) <= now) return null;
  const idp = await getIdentityProvider(data.control, data.orgId, row.idpId);
  if (!idp) return null;
  let endpoint: string | undefined;
  try {
    endpoint = (await discover(outboundFetch(data.env), idp.issuer, now)).end_session_endpoint;
  } catch (e) {
    if (e instanceof SsoFailure) return null;
    throw e;
  }
  if (!endpoint) return null;
  const { id_token } = await decryptCredentials(data.env, tokenAad(data.orgId, idHash), row.idTokenEnc);
  const url = new URL(endpoint);
  if (id_token) url.searchParams.set("id_token_hint", id_token);
  url.searchParams.set("client_id", idp.clientId);
  url.searchParams.set("post_logout_redirect_uri", postLogoutRedirectUri(publicBase));
  return url.toString();
}
