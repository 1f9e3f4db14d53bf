// Authenticates every /api and /fhir request and records the principal and the
// organization's effective limits on the context. Key lookups are cached briefly
// per isolate; revocation through the API clears the entry at once here, and
// other isolates see it within KEY_CACHE_TTL_MS.
import { createMiddleware } from "hono/factory";
import { authenticate } from "../auth/authenticate";
import { type Permission, type Principal, denial } from "../auth/permissions";
import { database } from "../../../platform/db/client";
import { forbidden } from "../../../platform/errors";
import type { AppEnv } from "../../../app-env";
import { resolveLimits } from "../limits/config";
import { ApiKeyStore, type KeyWithOrg } from "../api-keys";

const KEY_CACHE_TTL_MS = 10_000;
const TOUCH_INTERVAL_MS = 60_000;
const keyCache = new Map<string, { entry: KeyWithOrg; until: number }>();

export function forgetCachedKey(keyHash: string): void {
  keyCache.delete(keyHash);
}

export function authenticateRequest(pathOrgParam?: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const store = new ApiKeyStore(database(c.env.DB));
    const now = Date.now();
    const { principal, entry, keyHash } = await authenticate(
      {
        authorization: c.req.header("authorization"),
        organizationId: c.req.header("x-organization-id"),
        pathOrganizationId: pathOrgParam ? c.req.param(pathOrgParam) : undefined,
      },
      async (hash) => {
        const cached = keyCache.get(hash);
        if (cached && cached.until > now) return cached.entry;
        const found = await store.findByHash(hash);
        if (found) keyCache.set(hash, { entry: found, until: now + KEY_CACHE_TTL_MS });
        return found;
      },
    );
    c.set("principal", principal);
    c.set("limits", resolveLimits(c.env, entry.orgLimits));

    const lastUsed = entry.key.lastUsedAt ? Date.parse(entry.key.lastUsedAt) : 0;
    if (now - lastUsed > TOUCH_INTERVAL_MS) {
      const at = new Date(now).toISOString();
      entry.key.lastUsedAt = at;
      c.executionCtx.waitUntil(store.touch(entry.key.id, at).catch(() => forgetCachedKey(keyHash)));
    }
    await next();
  });
}

/** Throws 403 naming the missing permission or scope unless `p` has one of them. */
export function authorize(p: Principal, permission: Permission, scope?: string): void {
  const reason = denial(p, permission, scope);
  if (reason) throw forbidden(reason);
}

export function requirePermission(permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    authorize(c.get("principal"), permission);
    await next();
  });
}

/** Allows a permission from the role, or else an explicit scope built from the request. */
export function requirePermissionOrScope(permission: Permission, scopeOf: (c: { req: { param(name: string): string | undefined } }) => string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    authorize(c.get("principal"), permission, scopeOf(c));
    await next();
  });
}
