// `npm run admin -- <command> [--flags]`: creates organizations and API keys,
// lists and revokes keys, sets per-org limits, against local D1 (default) or the
// deployed database (--remote).
import { parseArgs } from "node:util";
import { generateApiKey } from "../src/auth/api-key-crypto";
import { insertApiKeySql, insertOrganizationSql, setLimitsSql } from "./lib/records";
import { applyMigrations, execSql, lit } from "./lib/wrangler";

const USAGE = `Usage: npm run admin -- <command> [options] [--remote]
  create-org   --name NAME [--id ID] [--limits JSON]
  list-orgs
  set-limits   --org ID --limits JSON      e.g. '{"apiPerMinute":5000,"concurrentExports":10}'
  create-key   --org ID --role admin|clinician|service [--name NAME] [--scopes agent/<id>:execute,...]
  list-keys    --org ID
  revoke-key   --org ID --id KEY_ID
  new-key-secret                           prints a well-formed key (for DEV_API_KEY)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    id: { type: "string" },
    org: { type: "string" },
    role: { type: "string" },
    scopes: { type: "string" },
    limits: { type: "string" },
    remote: { type: "boolean", default: false },
  },
});

function need(flag: keyof typeof values): string {
  const v = values[flag];
  if (typeof v !== "string" || !v) throw new Error(`--${flag} is required\n\n${USAGE}`);
  return v;
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

async function main(): Promise<void> {
  const [command] = positionals;
  const remote = values.remote ?? false;
  if (command === "new-key-secret") return console.log(generateApiKey());
  if (!command) throw new Error(USAGE);
  if (!remote) applyMigrations();
  switch (command) {
    case "create-org": {
      const id = values.id ?? crypto.randomUUID();
      execSql(insertOrganizationSql(id, need("name"), values.limits ? JSON.parse(values.limits) : {}), remote);
      return print(execSql(`SELECT * FROM organizations WHERE id = ${lit(id)}`, remote)[0]);
    }
    case "list-orgs":
      return print(execSql("SELECT id, name, limits, created_at FROM organizations ORDER BY created_at", remote));
    case "set-limits":
      execSql(setLimitsSql(need("org"), JSON.parse(need("limits"))), remote);
      return print(execSql(`SELECT id, limits FROM organizations WHERE id = ${lit(need("org"))}`, remote)[0]);
    case "create-key": {
      const orgId = need("org");
      if (!execSql(`SELECT id FROM organizations WHERE id = ${lit(orgId)}`, remote).length) {
        throw new Error(`No organization ${orgId}`);
      }
      const role = need("role");
      const { sql, secret, id } = await insertApiKeySql({
        orgId,
        role,
        name: values.name ?? `${role} key`,
        scopes: values.scopes ? values.scopes.split(",").map((s) => s.trim()) : [],
      });
      execSql(sql, remote);
      return print({ id, org_id: orgId, role, key: secret, note: "The key is shown only now." });
    }
    case "list-keys":
      return print(
        execSql(
          `SELECT id, name, role, scopes, key_prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE org_id = ${lit(need("org"))} ORDER BY created_at`,
          remote,
        ),
      );
    case "revoke-key":
      execSql(
        `UPDATE api_keys SET revoked_at = ${lit(new Date().toISOString())} WHERE org_id = ${lit(need("org"))} AND id = ${lit(need("id"))} AND revoked_at IS NULL`,
        remote,
      );
      return print(execSql(`SELECT id, revoked_at FROM api_keys WHERE id = ${lit(need("id"))}`, remote)[0]);
    default:
      throw new Error(`Unknown command ${command}\n\n${USAGE}`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
