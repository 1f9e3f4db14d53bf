// SQL for the organization and API key rows the scripts create, using the
// Worker's own key format and hashing so keys made here work there.
import { displayPrefix, generateApiKey, hashApiKey } from "../../src/features/tenancy/auth/api-key-crypto";
import { ROLES, type Role, isValidScope, scopedAgentId } from "../../src/features/tenancy/auth/permissions";
import { limitOverridesSchema } from "../../src/features/tenancy/limits/config";
import { lit } from "./sql";

export function insertOrganizationSql(id: string, name: string, shard: string, limits: unknown = {}): string {
  const parsed = limitOverridesSchema.parse(limits);
  return `INSERT OR IGNORE INTO organizations (id, name, limits, created_at, shard) VALUES (${lit(id)}, ${lit(name)}, ${lit(JSON.stringify(parsed))}, ${lit(new Date().toISOString())}, ${lit(shard)});`;
}

export async function insertApiKeySql(input: {
  orgId: string;
  name: string;
  role: string;
  scopes?: string[];
  secret?: string;
}): Promise<{ sql: string; secret: string; id: string }> {
  if (!ROLES.includes(input.role as Role)) throw new Error(`role must be one of ${ROLES.join(", ")}`);
  const scopes = input.scopes ?? [];
  const bad = scopes.filter((s) => !isValidScope(s));
  if (bad.length) throw new Error(`invalid scopes: ${bad.join(", ")}`);
  const secret = input.secret ?? generateApiKey();
  const id = crypto.randomUUID();
  const hash = await hashApiKey(secret);
  const sql = `INSERT OR IGNORE INTO api_keys (id, org_id, name, role, scopes, key_hash, key_prefix, created_at, created_by) VALUES (${lit(id)}, ${lit(input.orgId)}, ${lit(input.name)}, ${lit(input.role)}, ${lit(JSON.stringify(scopes))}, ${lit(hash)}, ${lit(displayPrefix(secret))}, ${lit(new Date().toISOString())}, 'cli');`;
  return { sql, secret, id };
}

/** Runs one SELECT against the database the CLI works on (local or remote D1) and returns its rows. */
export type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/** The agents the scopes name that are not agents of the org (a key scoped to them could do nothing). */
export async function missingScopedAgents(orgId: string, scopes: string[], query: Query): Promise<string[]> {
  const ids = [...new Set(scopes.flatMap((s) => scopedAgentId(s) ?? []))];
  if (!ids.length) return [];
  const found = new Set((await query(`SELECT id FROM agents WHERE org_id = ${lit(orgId)} AND id IN (${ids.map(lit).join(", ")})`)).map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}
