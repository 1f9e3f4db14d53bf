// Why a single sign-on was refused: the codes the start and the callback redirect to the console's
// sign-in page with (`/?sso_error=<CODE>`), each recorded in the organization's audit trail with
// its reason (docs/identity.md lists them).

export const SSO_ERROR_CODES = [
  /** The organization has no enabled identity provider (or does not exist), or the one a sign-in started at was removed or disabled meanwhile. */
  "SSO_NOT_CONFIGURED",
  /** The start named an identity provider the organization does not have enabled, or named none while it has several. */
  "IDP_UNKNOWN",
  /** The state is unknown, already used, for another organization, or the sign-in started in another browser or against a configuration changed since. */
  "STATE_INVALID",
  /** The sign-in took longer than its 10 minutes. */
  "STATE_EXPIRED",
  /** The IdP answered `error=access_denied` (the user cancelled, or is not assigned to the application). */
  "ACCESS_DENIED",
  /** The IdP failed or answered another error: discovery, the token endpoint, an `error` other than access_denied. */
  "IDP_ERROR",
  /** The ID token is invalid: signature, issuer, audience, expiry. */
  "TOKEN_INVALID",
  /** The ID token's nonce is not this sign-in's. */
  "NONCE_MISMATCH",
  /** The ID token carries no usable email address in the configured claim. */
  "EMAIL_MISSING",
  /** The IdP says the email address is not verified (`email_verified: false`). */
  "EMAIL_NOT_VERIFIED",
  /** The email's domain is not among the allowed ones. */
  "DOMAIN_NOT_ALLOWED",
  /** Just-in-time provisioning (or the role sync) found no role for the user's claims and there is no default. */
  "NO_ROLE_MAPPED",
  /** No user of the organization has this email and just-in-time provisioning is off. */
  "NOT_PROVISIONED",
  /** The user is disabled. */
  "USER_DISABLED",
  /** The user is bound to another subject of the IdP (or to another IdP). */
  "SUBJECT_MISMATCH",
] as const;

export type SsoErrorCode = (typeof SSO_ERROR_CODES)[number];

export class SsoFailure extends Error {
  constructor(
    readonly code: SsoErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "SsoFailure";
  }
}
