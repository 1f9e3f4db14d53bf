// The single sign-on flow: OpenID Connect's authorization code flow with PKCE (S256), state and
// nonce, against the organization's own IdP.
//
// start:    a pending sign-in row keyed by the SHA-256 of a random `state` (single use, 10 minutes,
//           bound to the organization, to the browser through the random value of its `cdis_sso`
//           cookie, and to the issuer and client it started against), holding the PKCE verifier
//           and the nonce sealed; then the IdP's authorization URL.
// callback: the row taken (deleted) by the first callback that presents its state, in this
//           organization only; the code exchanged and the ID token validated (oidc.ts); the email
//           and its domain checked; the user found by the IdP subject bound to them, else by email
//           (then bound to the subject), else created just in time; a disabled user refused; then a
//           console session exactly as password sign-in opens one.
// The organization may have several identity providers: the start names one (`?idp=`), its pending
// row is bound to it, and the callback (one per organization) completes the sign-in there only.
// Every refusal is an SsoFailure with its code, recorded in the organization's audit trail
// (console_session.sign_in, outcome 4) and granting nothing.
import { and, eq, lt } from "drizzle-orm";
import type { Env } from "../../../platform/env";
import { ApiError } from "../../../platform/errors";
import type { OrgContexts } from "../../../platform/org-context";
import { controlStore, type OrgData } from "../../../platform/org-data";
import { outboundFetch } from "../../../platform/outbound/fetch";
import type { Principal } from "../../../platform/principal";
import { base64url } from "../../../platform/base64url";
import { recordManagementAction } from "../../audit";
import { decryptCredentials, encryptCredentials } from "../../connectors";
import type { UserRow } from "../tables";
import { sha256Hex } from "../tokens";
import { UserStore } from "../users";
import { userPrincipal } from "../use-cases/principal";
import { openUserSession } from "../use-cases/sign-in";
import { type Claims, displayNameOf, domainAllowed, emailOf, mappedRole } from "./claims";
import { clientSecretOf, getIdentityProvider, listIdentityProviders } from "./config";
import { rememberSsoSession } from "./logout";
import { SsoFailure } from "./errors";
import { authorizationUrl, discover, exchangeCode, newSecrets } from "./oidc";
import { safeReturnTo, ssoPaths } from "./paths";
import { type IdentityProviderRow, ssoStates } from "../tables";

export const STATE_TTL_MS = 10 * 60_000;
/** The cookie binding a pending sign-in to the browser that started it (docs/identity.md). */
export const BROWSER_COOKIE = "cdis_sso";
export const BROWSER_VALUE = /^[A-Za-z0-9_-]{43}$/;

/** Who refused AuditEvents name when the person is not (yet) a user: the organization's single sign-on itself. */
const ssoPrincipal = (orgId: string, issuer: string | undefined): Principal => ({
  orgId,
  keyId: "system:sso",
  keyName: issuer ? `single sign-on (${issuer})` : "single sign-on",
  role: "service",
  scopes: [],
});

const stateAad = (orgId: string, stateHash: string) => `sso-state:${orgId}:${stateHash}`;

/**
 * The enabled identity provider a sign-in starts at: the one `idpId` names, or, unnamed, the
 * organization's only enabled one (a start URL of the days of one IdP per organization).
 */
async function startingProvider(env: Env, orgId: string, idpId: string | undefined): Promise<IdentityProviderRow> {
  const control = controlStore(env);
  if (idpId !== undefined) {
    const idp = await getIdentityProvider(control, orgId, idpId);
    if (!idp?.enabled) throw new SsoFailure("IDP_UNKNOWN", "the organization has no enabled identity provider with this id");
    return idp;
  }
  const enabled = (await listIdentityProviders(control, orgId)).filter((p) => p.enabled);
  if (!enabled.length) throw new SsoFailure("SSO_NOT_CONFIGURED", "the organization has no enabled identity provider");
  if (enabled.length > 1) throw new SsoFailure("IDP_UNKNOWN", "the organization has several identity providers and the start named none");
  return enabled[0] as IdentityProviderRow;
}

export interface StartInput {
  orgId: string;
  publicBase: string;
  /** The browser's `cdis_sso` value, when it has one: kept, so two sign-ins in two tabs both complete. */
  browser?: string | undefined;
  returnTo?: string | undefined;
  /** `?idp=`: which of the organization's identity providers (unnamed: its only one). */
  idpId?: string | undefined;
}

export interface Started {
  location: string;
  /** The `cdis_sso` value to set. */
  browser: string;
}

export async function startSsoSignIn(env: Env, contexts: OrgContexts, input: StartInput, now = Date.now()): Promise<Started> {
  const idp = await startingProvider(env, input.orgId, input.idpId);
  const fetch = outboundFetch(env);
  let as: Awaited<ReturnType<typeof discover>>;
  try {
    as = await discover(fetch, idp.issuer, now);
  } catch (e) {
    if (e instanceof SsoFailure) await audit(await contexts.forOrg(input.orgId), ssoPrincipal(input.orgId, idp.issuer), e, { issuer: idp.issuer });
    throw e;
  }
  const { state, nonce, verifier } = newSecrets();
  const browser = input.browser && BROWSER_VALUE.test(input.browser) ? input.browser : base64url(crypto.getRandomValues(new Uint8Array(32)));
  const stateHash = await sha256Hex(state);
  const redirectUri = `${input.publicBase}${ssoPaths(input.orgId).callback}`;
  const control = controlStore(env);
  const at = new Date(now).toISOString();
  // Expired sign-ins of this organization go as new ones come: the table holds only pending ones.
  await control.delete(ssoStates).where(and(eq(ssoStates.orgId, input.orgId), lt(ssoStates.expiresAt, at)));
  await control.insert(ssoStates).values({
    stateHash,
    orgId: input.orgId,
    idpId: idp.id,
    browserHash: await sha256Hex(browser),
    issuer: idp.issuer,
    clientId: idp.clientId,
    secretsEnc: await encryptCredentials(env, stateAad(input.orgId, stateHash), { verifier, nonce }),
    redirectUri,
    returnTo: safeReturnTo(input.returnTo),
    createdAt: at,
    expiresAt: new Date(now + STATE_TTL_MS).toISOString(),
  });
  return { location: await authorizationUrl(as, { clientId: idp.clientId, redirectUri, scopes: idp.scopes, state, nonce, verifier }), browser };
}

export interface CallbackInput {
  orgId: string;
  publicBase: string;
  /** The callback's whole query: code, state, iss, or error. */
  query: URLSearchParams;
  browser?: string | undefined;
}

export interface Completed {
  sessionId: string;
  maxAgeSeconds: number;
  /** The console path the sign-in started from, under the public base. */
  location: string;
  user: UserRow;
}

/** What is known of a failing attempt, for its AuditEvent. */
interface Attempt {
  data?: OrgData;
  issuer?: string;
  user?: UserRow;
  subject?: string;
  email?: string;
}

export async function completeSsoSignIn(env: Env, contexts: OrgContexts, input: CallbackInput, now = Date.now()): Promise<Completed> {
  const attempt: Attempt = {};
  try {
    return await complete(env, contexts, input, attempt, now);
  } catch (e) {
    if (e instanceof SsoFailure && attempt.data) {
      const principal = attempt.user ? userPrincipal(attempt.user) : ssoPrincipal(input.orgId, attempt.issuer);
      await audit(attempt.data, principal, e, { issuer: attempt.issuer, subject: attempt.subject, email: attempt.email });
    }
    throw e;
  }
}

async function complete(env: Env, contexts: OrgContexts, input: CallbackInput, attempt: Attempt, now: number): Promise<Completed> {
  const invalid = (why: string) => new SsoFailure("STATE_INVALID", why);
  // An organization that does not exist answers what an unknown state does, and has no trail to record in.
  const unknownOrg = new ApiError(400, "STATE_INVALID", "unknown organization");
  attempt.data = await contexts.forPublicOrg(input.orgId, () => unknownOrg).catch((e: unknown) => {
    throw e === unknownOrg ? invalid("unknown organization") : e;
  });
  const state = input.query.get("state");
  if (!state) throw invalid("the callback has no state parameter");
  const control = controlStore(env);
  const stateHash = await sha256Hex(state);
  // Single use: the first callback presenting the state takes the row away, whatever happens next.
  const row = await control.delete(ssoStates).where(and(eq(ssoStates.orgId, input.orgId), eq(ssoStates.stateHash, stateHash))).returning().get();
  if (!row) throw invalid("unknown or already used state (or a state of another organization)");
  attempt.issuer = row.issuer;
  if (!input.browser || (await sha256Hex(input.browser)) !== row.browserHash) throw invalid("the sign-in was not started in this browser (no matching cdis_sso cookie)");
  if (Date.parse(row.expiresAt) <= now) throw new SsoFailure("STATE_EXPIRED", "the sign-in took longer than 10 minutes");
  const idp = await getIdentityProvider(control, input.orgId, row.idpId);
  if (!idp?.enabled) throw new SsoFailure("SSO_NOT_CONFIGURED", "the identity provider the sign-in started at is gone or disabled");
  if (idp.issuer !== row.issuer || idp.clientId !== row.clientId) throw invalid("the identity provider's configuration changed since the sign-in started");

  const fetch = outboundFetch(env);
  const as = await discover(fetch, idp.issuer, now);
  const { verifier, nonce } = await decryptCredentials(env, stateAad(input.orgId, stateHash), row.secretsEnc);
  const { claims, idToken }: { claims: Claims; idToken: string } = await exchangeCode(fetch, as, { issuer: idp.issuer, clientId: idp.clientId, clientSecret: await clientSecretOf(env, idp) }, {
    query: input.query,
    state,
    redirectUri: row.redirectUri,
    verifier: verifier ?? "",
    nonce: nonce ?? "",
  });
  const subject = String(claims.sub);
  attempt.subject = subject;
  const email = emailOf(claims, idp.emailClaim);
  if (!email.ok) throw new SsoFailure(email.code, email.reason);
  attempt.email = email.email;
  if (!domainAllowed(email.domain, idp.allowedDomains)) throw new SsoFailure("DOMAIN_NOT_ALLOWED", `${email.domain} is not an allowed email domain`);

  const store = new UserStore(control);
  const at = new Date(now).toISOString();
  let user = await resolveUser(store, attempt, idp, claims, { subject, email: email.email }, at);
  if (idp.roleMapping.sync) {
    const role = mappedRole(claims, idp.roleMapping);
    if (!role) throw new SsoFailure("NO_ROLE_MAPPED", `no role maps the ${idp.roleMapping.claim} claim, and there is no default`);
    if (role !== user.role) await store.setRole(user.id, role);
  }
  if (user.status === "invited") await store.activateInvited(user.id);
  await store.recordSsoSignIn(user.id, at);
  user = (await store.get(user.orgId, user.id)) ?? user;
  const { sessionId, maxAgeSeconds } = await openUserSession(env, user, now);
  // What ends the IdP's session at sign-out, where the IdP offers that (RP-Initiated Logout).
  if (as.end_session_endpoint) await rememberSsoSession(env, { sessionId, orgId: input.orgId, idpId: idp.id, idToken, expiresAt: now + maxAgeSeconds * 1000 }, now);
  await recordManagementAction(attempt.data, userPrincipal(user), { action: "console_session.sign_in", outcome: "0", detail: auditDetail({ issuer: idp.issuer, subject, email: email.email }) });
  return { sessionId, maxAgeSeconds, location: `${input.publicBase}${row.returnTo}`, user };
}

/**
 * The user these claims sign in as: the one bound to the subject; else the one with the email,
 * bound now (refused when already bound to another subject); else, with just-in-time
 * provisioning, a new one with the mapped role. A disabled user is refused before anything changes.
 */
async function resolveUser(store: UserStore, attempt: Attempt, idp: IdentityProviderRow, claims: Claims, who: { subject: string; email: string }, at: string): Promise<UserRow> {
  const usable = (user: UserRow): UserRow => {
    attempt.user = user;
    if (user.status === "disabled") throw new SsoFailure("USER_DISABLED", "the user is disabled");
    return user;
  };
  const bound = await store.findBySubject(idp.orgId, idp.issuer, who.subject);
  if (bound) return usable(bound);
  const byEmail = await store.findByEmail(idp.orgId, who.email);
  if (byEmail) {
    usable(byEmail);
    const mismatch = () => new SsoFailure("SUBJECT_MISMATCH", `the user ${who.email} is bound to another subject${byEmail.identityProvider !== idp.issuer ? ` of ${byEmail.identityProvider}` : ""}`);
    if (byEmail.externalSubject !== null) throw mismatch();
    if (!(await store.bindSubject(byEmail.id, idp.issuer, who.subject))) {
      // Another first sign-in bound the user meanwhile: fine only if it bound this subject.
      const now = await store.get(idp.orgId, byEmail.id);
      if (now?.identityProvider !== idp.issuer || now.externalSubject !== who.subject) throw mismatch();
    }
    return (await store.get(idp.orgId, byEmail.id)) ?? byEmail;
  }
  if (!idp.jitProvisioning) throw new SsoFailure("NOT_PROVISIONED", `no user of the organization has the email ${who.email}, and just-in-time provisioning is off`);
  const role = mappedRole(claims, idp.roleMapping);
  if (!role) throw new SsoFailure("NO_ROLE_MAPPED", `no role maps the ${idp.roleMapping.claim} claim, and there is no default`);
  let created: UserRow;
  try {
    created = await store.createProvisioned({ orgId: idp.orgId, email: who.email, name: displayNameOf(claims, who.email), role, issuer: idp.issuer, subject: who.subject }, at);
  } catch (e) {
    // Two first sign-ins at once: the unique indexes keep one user; the other signs in as it.
    if (!String(e).includes("UNIQUE")) throw e;
    const winner = await store.findBySubject(idp.orgId, idp.issuer, who.subject);
    if (!winner) throw e;
    return usable(winner);
  }
  attempt.user = created;
  if (attempt.data) {
    await recordManagementAction(attempt.data, ssoPrincipal(idp.orgId, idp.issuer), { action: "user.provision", entityId: created.id, outcome: "0", detail: auditDetail({ issuer: idp.issuer, ...who, role }) });
  }
  return created;
}

function auditDetail(facts: Record<string, string | undefined>): Record<string, string> {
  const detail: Record<string, string> = { sign_in_method: "sso" };
  for (const [k, v] of Object.entries(facts)) if (v !== undefined) detail[k] = v.slice(0, 256);
  return detail;
}

async function audit(data: OrgData, principal: Principal, failure: SsoFailure, facts: Record<string, string | undefined>): Promise<void> {
  await recordManagementAction(data, principal, { action: "console_session.sign_in", outcome: "4", reason: `${failure.code}: ${failure.message}`, detail: auditDetail(facts) });
}
