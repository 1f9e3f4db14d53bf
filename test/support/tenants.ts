// Test fixtures: organizations and keys created straight through the stores,
// and a fetch helper that sends the two auth headers.
import { exports, env } from "cloudflare:workers";
import type { Role } from "../../src/features/tenancy/auth/permissions";
import { database } from "../../src/platform/db/client";
import type { LimitOverrides } from "../../src/features/tenancy/limits/config";
import { ApiKeyStore } from "../../src/features/tenancy/api-keys";
import { OrganizationStore } from "../../src/features/tenancy/organizations";

export interface Tenant {
  orgId: string;
  key: string;
  keyId: string;
  /** Fetch against the Worker with this tenant's credentials. */
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export async function createKey(orgId: string, role: Role = "admin", scopes: string[] = []) {
  const { row, secret } = await new ApiKeyStore(database(env.DB)).create({ orgId, name: `${role} key`, role, scopes });
  return { key: secret, keyId: row.id };
}

export function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) {
    headers.set("content-type", "application/json");
    rest.body = JSON.stringify(json);
  }
  return exports.default.fetch(new Request(`http://localhost${path}`, { ...rest, headers }));
}

export function authedFetch(orgId: string, key: string) {
  return (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
    if (!headers.has("x-organization-id")) headers.set("x-organization-id", orgId);
    return call(path, { ...init, headers });
  };
}

export async function createTenant(opts: { role?: Role; scopes?: string[]; limits?: LimitOverrides } = {}): Promise<Tenant> {
  const org = await new OrganizationStore(database(env.DB)).create({ name: "Test org", limits: opts.limits });
  const { key, keyId } = await createKey(org.id, opts.role ?? "admin", opts.scopes ?? []);
  return { orgId: org.id, key, keyId, fetch: authedFetch(org.id, key) };
}
