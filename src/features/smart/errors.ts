// OAuth errors as the endpoints answer them (RFC 6749 §5.2, RFC 7009 §2.2.1, RFC 7662 §2.3).
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "unsupported_token_type";

/** An error of the token, introspection or revocation endpoint: its status and body. */
export class TokenError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** The scheme the client authenticated with: a 401 answers `WWW-Authenticate` in it (Basic, else Bearer). */
    readonly scheme: "Basic" | "Bearer" = "Bearer",
    /** The client, when it was identified: the audit names it. */
    readonly clientId?: string,
  ) {
    super(description);
  }
}

export const invalidRequest = (why: string) => new TokenError(400, "invalid_request", why);
export const invalidGrant = (why: string, clientId?: string) => new TokenError(400, "invalid_grant", why, "Bearer", clientId);
