// Token introspection (RFC 7662) and revocation (RFC 7009) for an org's tokens. The caller is a
// confidential client of the org (its own tokens only) or a management API key of the org with
// clients:manage (any of the org's tokens). Introspection answers `active: false` for anything
// foreign, expired, revoked, used or malformed, never why; it reads the grant uncached, so it is
// authoritative. Revoking a refresh token, or an access token a user authorized, revokes its grant:
// the grant's refresh tokens stop at once, its access tokens within LIVE_CACHE_MS (grants.ts).
import type { JWTPayload } from "jose";
import type { Database } from "../../platform/db/client";
import { authenticateApiKey, hasPermission } from "../tenancy";
import { InvalidToken, looksLikeJwt, verifiedClaims } from "./access-tokens";
import { authenticateClient, type ClientAuthRequest } from "./client-auth";
import { TokenError } from "./errors";
import { checkGrant, revokeGrant } from "./grants";
import { findRefreshToken, revokeRefreshToken } from "./refresh/rotation";

export interface TokenEndpointRequest extends Omit<ClientAuthRequest, "now"> {
  fhirBase: string;
  env: object;
  now?: number;
}

/** Who asks: a client (its tokens only) or a management key (every token of the org). */
export type Caller = { kind: "client"; clientId: string; public: boolean } | { kind: "key"; keyId: string };

const MANAGEMENT_KEY = /^Bearer[ ]+cdis_/i;

export async function callerOf(control: Database, req: TokenEndpointRequest, allowPublic: boolean): Promise<Caller> {
  if (req.authorization && MANAGEMENT_KEY.test(req.authorization)) {
    const principal = await authenticateApiKey(control, req.authorization, req.orgId);
    if (!principal || !hasPermission(principal, "clients:manage")) throw new TokenError(401, "invalid_client", "The API key is not a management key of this organization (clients:manage)");
    return { kind: "key", keyId: principal.keyId };
  }
  const { client, method } = await authenticateClient(control, { ...req, now: req.now ?? Date.now() });
  if (method === "none" && !allowPublic) throw new TokenError(401, "invalid_client", "Introspection needs an authenticated (confidential) client or a management key", "Bearer", client.id);
  return { kind: "client", clientId: client.id, public: method === "none" };
}

export type Introspection = { active: false } | ({ active: true } & Record<string, unknown>);

const INACTIVE: Introspection = { active: false };
const owns = (caller: Caller, clientId: string | undefined) => caller.kind === "key" || caller.clientId === clientId;

async function accessClaims(control: Database, req: TokenEndpointRequest, token: string, now: number): Promise<JWTPayload | undefined> {
  try {
    return await verifiedClaims(control, token, req.orgId, req.fhirBase, now);
  } catch (e) {
    if (e instanceof InvalidToken) return undefined;
    throw e;
  }
}

const clientOfClaims = (p: JWTPayload) => (typeof p.client_id === "string" ? p.client_id : p.sub);

export async function introspect(control: Database, req: TokenEndpointRequest, caller: Caller): Promise<Introspection> {
  const now = req.now ?? Date.now();
  const token = req.form.token;
  if (!token) throw new TokenError(400, "invalid_request", "token is required");
  if (looksLikeJwt(token)) {
    const claims = await accessClaims(control, req, token, now);
    if (!claims || !owns(caller, clientOfClaims(claims))) return INACTIVE;
    if (typeof claims.gid === "string" && !(await checkGrant(control, req.env, req.orgId, claims.gid, now)).live) return INACTIVE;
    const { org: _org, client_name: _name, gid: _gid, ...rest } = claims;
    return { active: true, ...rest, client_id: clientOfClaims(claims), token_type: "Bearer" };
  }
  const row = await findRefreshToken(control, req.orgId, token);
  if (!row || row.usedAt || row.expiresAt <= Math.floor(now / 1000) || !owns(caller, row.clientId)) return INACTIVE;
  const check = await checkGrant(control, req.env, req.orgId, row.grantId, now);
  if (!check.live) return INACTIVE;
  const { grant } = check.value;
  return {
    active: true,
    token_type: "refresh_token",
    scope: grant.scopes.join(" "),
    client_id: row.clientId,
    sub: grant.userId,
    iss: req.fhirBase,
    iat: Math.floor(Date.parse(row.createdAt) / 1000),
    exp: row.expiresAt,
    ...(grant.patient ? { patient: grant.patient } : {}),
    ...(grant.encounter ? { encounter: grant.encounter } : {}),
    ...(grant.fhirUser ? { fhirUser: grant.fhirUser } : {}),
  };
}

/** RFC 7009: whatever the token, 200 (a foreign or dead one changes nothing); the grant revoked, if any. */
export async function revoke(control: Database, req: TokenEndpointRequest, caller: Caller): Promise<{ grantId?: string }> {
  const now = req.now ?? Date.now();
  const token = req.form.token;
  if (!token) throw new TokenError(400, "invalid_request", "token is required");
  const clientId = caller.kind === "client" ? caller.clientId : undefined;
  if (looksLikeJwt(token)) {
    const claims = await accessClaims(control, req, token, now);
    if (!claims || !owns(caller, clientOfClaims(claims))) return {};
    if (typeof claims.gid !== "string") {
      throw new TokenError(400, "unsupported_token_type", "A backend service's access token cannot be revoked: it expires within 5 minutes; disable the client to stop new ones", "Bearer", clientId);
    }
    await revokeGrant(control, claims.gid, "access token revoked (RFC 7009)", now);
    return { grantId: claims.gid };
  }
  const row = await findRefreshToken(control, req.orgId, token);
  if (row && (await revokeRefreshToken(control, req.orgId, clientId, token, now))) return { grantId: row.grantId };
  return {};
}
