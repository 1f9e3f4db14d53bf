// Test fixtures: organizations and keys created straight through the stores,
// and a fetch helper that sends the two auth headers.
import { exports, env } from "cloudflare:workers";
import type { Role } from "../../src/features/tenancy/auth/permissions";
import type { OrgContext } from "../../src/platform/org-context";
import { contextFor, contextForOrg } from "../../src/main/context";
import type { LimitOverrides } from "../../src/features/tenancy/limits/config";
import { shardForNewOrg } from "../../src/platform/directory";
import { controlStore } from "../../src/platform/org-data";
import { ApiKeyStore } from "../../src/features/tenancy/api-keys";
import { OrganizationStore } from "../../src/features/tenancy/organizations";

export interface Tenant {
  orgId: string;
  key: string;
  keyId: string;
  /** The data shard the org was placed on. */
  shard: string;
  /** The org's context (its shard's databases and services), as the Worker builds it. */
  ctx: OrgContext;
  /** Fetch against the Worker with this tenant's credentials. */
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export async function createKey(orgId: string, role: Role = "admin", scopes: string[] = []) {
  const { row, secret } = await new ApiKeyStore(controlStore(env)).create({ orgId, name: `${role} key`, role, scopes });
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

/** An organization on `opts.shard`, or where the service places new ones (the emptier shard: tests spread over both). */
export async function createTenant(opts: { role?: Role; scopes?: string[]; limits?: LimitOverrides; shard?: string; id?: string } = {}): Promise<Tenant> {
  const shard = await shardForNewOrg(env, opts.shard);
  const org = await new OrganizationStore(controlStore(env)).create({ id: opts.id, name: "Test org", limits: opts.limits, shard });
  const { key, keyId } = await createKey(org.id, opts.role ?? "admin", opts.scopes ?? []);
  const ctx = contextFor(env, { orgId: org.id, shard, movingTo: null });
  return { orgId: org.id, key, keyId, shard, ctx, fetch: authedFetch(org.id, key) };
}

/** The D1 database of the shard `orgId` lives on (for tests that look at rows directly). */
export async function shardOf(orgId: string): Promise<D1Database> {
  return (await contextForOrg(env, orgId)).d1;
}
