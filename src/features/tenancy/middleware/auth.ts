// Authenticates every /api and /fhir request and records the principal and the
// organization's effective limits on the context. Key lookups are cached briefly
// per isolate; revocation through the API clears the entry at once here, and
// other isolates see it within KEY_CACHE_TTL_MS.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { authenticate, RefusedForOrg } from "../auth/authenticate";
import { type Permission, type Principal, denial } from "../auth/permissions";
import { forbidden, unauthorized } from "../../../platform/errors";
import { fhirBaseUrl } from "../../../platform/http/public-url";
import type { HttpEnv } from "../../../platform/http/http-env";
import { resolveLimits } from "../limits/config";
import { PLACEMENT_TTL_MS } from "../../../platform/directory";
import { controlStore } from "../../../platform/org-data";
import { ApiKeyStore, type KeyWithOrg } from "../api-keys";
import { OrganizationStore } from "../organizations";
import { ConsoleSessionStore } from "../sessions/session-store";
import { authenticateSession } from "../sessions/authenticate-session";
import { assertSameOriginWrite, sessionIdOf, sessionLifetimes } from "../sessions/session-policy";
import { countRefusedInOrg } from "./rate-limit";
import type { Placement } from "../../../platform/directory";
import type { Limits } from "../limits/config";
import type { SessionWithKey } from "../sessions/session-store";
import type { ApiKeyRow } from "../tables";

declare module "hono" {
  interface ContextVariableMap {
    /** Who the request authenticated as. */
    principal: Principal;
    /** Where the principal's org lives (the directory row the key lookup carried). */
    placement: Placement;
    /** The org's effective limits. */
    limits: Limits;
    /** Set when a console session cookie (not a Bearer key) authenticated the request. */
    consoleSession?: { idHash: string; entry: SessionWithKey };
  }
}

// Entries carry the org's placement, so the directory's TTL bounds them (a move waits it out).
const KEY_CACHE_TTL_MS = PLACEMENT_TTL_MS;
const TOUCH_INTERVAL_MS = 60_000;
const keyCache = new Map<string, { entry: KeyWithOrg; until: number }>();

export function forgetCachedKey(keyHash: string): void {
  keyCache.delete(keyHash);
}

/** Forgets every cached key of this isolate (the placements they carry changed: a move from here). */
/** Drops a user's personal keys from this isolate's cache: a change of the person (role, status, policy) applies to them at once here, elsewhere within the cache's lifetime. */
export function forgetCachedKeysOf(userId: string): void {
  for (const [hash, { entry }] of keyCache) if (entry.key.ownerUserId === userId) keyCache.delete(hash);
}

export function forgetCachedKeys(): void {
  keyCache.clear();
  orgCache.clear();
}

/**
 * OAuth access tokens a route family accepts besides API keys (SMART on /fhir, wired by the
 * composition root): `accepts` tells a token from a key by its shape; `verify` answers the
 * principal or throws a 401 ApiError (with its WWW-Authenticate header).
 */
export interface AccessTokens {
  accepts(credential: string): boolean;
  verify(env: HttpEnv["Bindings"], token: string, orgId: string, fhirBase: string): Promise<Principal>;
}

const BEARER_CREDENTIAL = /^Bearer[ ]+([^\s]+)[ ]*$/i;
type OrgEntry = Omit<KeyWithOrg, "key">;
const orgCache = new Map<string, { entry: OrgEntry; until: number }>();

export function authenticateRequest(pathOrgParam?: string, accessTokens?: AccessTokens) {
  return createMiddleware<HttpEnv>(async (c, next) => {
    const now = Date.now();
    const pathOrganizationId = pathOrgParam ? c.req.param(pathOrgParam) : undefined;
    const authorization = c.req.header("authorization");
    const sessionId = authorization ? undefined : sessionIdOf(c);
    const token = accessTokens && pathOrganizationId !== undefined ? BEARER_CREDENTIAL.exec(authorization ?? "")?.[1] : undefined;
    let authenticated: { principal: Principal; entry: OrgEntry };
    try {
      if (token && accessTokens?.accepts(token) && pathOrganizationId !== undefined) authenticated = await tokenPrincipal(c, accessTokens, token, pathOrganizationId, now);
      else authenticated = sessionId ? await sessionPrincipal(c, sessionId, pathOrganizationId, now) : await keyPrincipal(c, pathOrganizationId, now);
    } catch (e) {
      // A valid credential naming the wrong organization counts in its own organization's bucket,
      // so it cannot spend the budget of the client IP it shares with others (429 once spent).
      if (e instanceof RefusedForOrg) await countRefusedInOrg(c, e.orgId, resolveLimits(c.env, e.orgLimits));
      throw e;
    }
    const { principal, entry } = authenticated;
    c.set("principal", principal);
    c.set("limits", resolveLimits(c.env, entry.orgLimits));
    c.set("placement", { orgId: principal.orgId, shard: entry.orgShard, movingTo: entry.orgMovingTo });
    await next();
  });
}

/**
 * An access token: the URL names the org (no X-Organization-ID needed; one that names another
 * org is refused as for a key). The org's limits and placement are cached per isolate.
 */
async function tokenPrincipal(c: Context<HttpEnv>, accessTokens: AccessTokens, token: string, orgId: string, now: number) {
  const principal = await accessTokens.verify(c.env, token, orgId, fhirBaseUrl(c));
  const header = c.req.header("x-organization-id")?.trim();
  if (header && header !== orgId) throw forbidden("The organization in the URL does not match X-Organization-ID");
  let entry = orgCache.get(orgId);
  if (!entry || entry.until <= now) {
    const org = await new OrganizationStore(controlStore(c.env)).get(orgId);
    if (!org) throw unauthorized("The access token's organization does not exist");
    entry = { entry: { orgLimits: org.limits, orgShard: org.shard, orgMovingTo: org.movingTo }, until: now + PLACEMENT_TTL_MS };
    orgCache.set(orgId, entry);
  }
  return { principal, entry: entry.entry };
}

/** A Bearer API key (cached briefly per isolate; its last use recorded at most once a minute). */
async function keyPrincipal(c: Context<HttpEnv>, pathOrganizationId: string | undefined, now: number) {
  const store = new ApiKeyStore(controlStore(c.env));
  const { principal, entry, keyHash } = await authenticate(
    { authorization: c.req.header("authorization"), organizationId: c.req.header("x-organization-id"), pathOrganizationId },
    async (hash) => {
      const cached = keyCache.get(hash);
      if (cached && cached.until > now) return cached.entry;
      const found = await store.findByHash(hash);
      if (found) keyCache.set(hash, { entry: found, until: now + KEY_CACHE_TTL_MS });
      return found;
    },
  );
  touchKey(c, store, entry.key, now, () => forgetCachedKey(keyHash));
  return { principal, entry };
}

/** Records a key's last use, at most once a minute, after the response (a failed write only retries sooner). */
function touchKey(c: Context<HttpEnv>, store: ApiKeyStore, key: ApiKeyRow, now: number, onFailure: () => void): void {
  const lastUsed = key.lastUsedAt ? Date.parse(key.lastUsedAt) : 0;
  if (now - lastUsed <= TOUCH_INTERVAL_MS) return;
  const at = new Date(now).toISOString();
  key.lastUsedAt = at;
  c.executionCtx.waitUntil(store.touch(key.id, at).catch(onFailure));
}

/**
 * A console session cookie: read uncached, so sign-out and key revocation end it at once; its
 * idle clock slides at most once a minute. Writes must pass the CSRF rule.
 */
async function sessionPrincipal(c: Context<HttpEnv>, sessionId: string, pathOrganizationId: string | undefined, now: number) {
  const store = new ConsoleSessionStore(controlStore(c.env));
  const lifetimes = sessionLifetimes(c.env);
  const { principal, entry, idHash } = await authenticateSession(
    { sessionId, organizationId: c.req.header("x-organization-id"), pathOrganizationId },
    (hash) => store.findByHash(hash),
    lifetimes,
    now,
  );
  assertSameOriginWrite(c);
  // Often enough that a short idle timeout still slides while the user works.
  if (now - Date.parse(entry.session.lastSeenAt) > Math.min(TOUCH_INTERVAL_MS, (lifetimes.idleSeconds * 1000) / 4)) {
    entry.session.lastSeenAt = new Date(now).toISOString();
    c.executionCtx.waitUntil(store.touch(idHash, entry.session.lastSeenAt));
  }
  // A key's session is that key in use: without this, a key used only through the console showed
  // "Last used: never". The session row is read uncached, so the key's last use is current.
  if (entry.key) touchKey(c, new ApiKeyStore(controlStore(c.env)), entry.key, now, () => {});
  c.set("consoleSession", { idHash, entry });
  return { principal, entry };
}

/** Throws 403 naming the missing permission or scope unless `p` has one of them. */
export function authorize(p: Principal, permission: Permission, scope?: string): void {
  const reason = denial(p, permission, scope);
  if (reason) throw forbidden(reason);
}

export function requirePermission(permission: Permission) {
  return createMiddleware<HttpEnv>(async (c, next) => {
    authorize(c.get("principal"), permission);
    await next();
  });
}

/** Allows a permission from the role, or else an explicit scope built from the request. */
export function requirePermissionOrScope(permission: Permission, scopeOf: (c: { req: { param(name: string): string | undefined } }) => string) {
  return createMiddleware<HttpEnv>(async (c, next) => {
    authorize(c.get("principal"), permission, scopeOf(c));
    await next();
  });
}
