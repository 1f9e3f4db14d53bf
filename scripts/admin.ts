// `npm run admin -- <command> [--flags]`: creates organizations and API keys,
// lists and revokes keys, against local D1 (default) or the deployed database (--remote); sets
// per-org limits, moves organizations between shards and purges expired AuditEvents through the
// service (operator routes, so each leaves its AuditEvent).
import { generateApiKey } from "../src/features/tenancy/auth/api-key-crypto";
import { type AdminArgs, UsageError, parseAdminArgs } from "./lib/admin-args";
import { moveOrg, purgeAudit, setLimits } from "./lib/move-org";
import { stateDirOf } from "./lib/dev-state";
import { insertApiKeySql, insertOrganizationSql, missingScopedAgents } from "./lib/records";
import { shardDatabaseName, shardForNewOrg } from "./lib/shards";
import { type D1Session, lit, withMigratedD1 } from "./lib/wrangler";

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

type RunArgs = Extract<AdminArgs, { kind: "run" }>;

async function run(args: RunArgs): Promise<void> {
  if (args.command === "new-key-secret") return console.log(generateApiKey());
  // Locally, the state npm start and npm run dev use (STATE_DIR).
  await withMigratedD1(args.remote ? { remote: true } : { persistTo: stateDirOf(process.env) }, (d1) => runOn(d1, args));
}

async function runOn(d1: D1Session, { command, values, remote }: RunArgs): Promise<void> {
  // parseAdminArgs has checked that the command's required flags are there.
  const need = (flag: keyof typeof values): string => values[flag] as string;
  const sql = (statement: string) => d1.execSql(statement);
  /** A query on the shard holding `orgId`'s data. */
  const orgSql = async (orgId: string) => {
    const shard = (await sql(`SELECT shard FROM organizations WHERE id = ${lit(orgId)}`))[0]?.shard;
    if (typeof shard !== "string") throw new Error(`No organization ${orgId}`);
    return (statement: string) => d1.execSql(statement, shardDatabaseName(shard));
  };
  switch (command) {
    case "create-org": {
      const id = values.id ?? crypto.randomUUID();
      const shard = shardForNewOrg(values.shard, (await sql("SELECT shard, COUNT(*) AS n FROM organizations GROUP BY shard")) as { shard: string; n: number }[]);
      await sql(insertOrganizationSql(id, need("name"), shard, values.limits ? JSON.parse(values.limits) : {}));
      return print((await sql(`SELECT * FROM organizations WHERE id = ${lit(id)}`))[0]);
    }
    case "list-orgs":
      return print(await sql("SELECT id, name, limits, shard, moving_to, created_at FROM organizations ORDER BY created_at"));
    case "move-org":
      return print(await moveOrg({ orgId: need("org"), shard: need("shard"), url: values.url, remote }));
    case "purge-audit":
      return print(await purgeAudit({ orgId: need("org"), url: values.url, remote }));
    case "set-limits":
      // Through the service, so the change leaves its AuditEvent (the operator, before and after).
      return print(await setLimits({ orgId: need("org"), limits: JSON.parse(need("limits")), url: values.url, remote }));
    case "create-key": {
      const orgId = need("org");
      const dataSql = await orgSql(orgId);
      const role = need("role");
      const scopes = values.scopes ? values.scopes.split(",").map((s) => s.trim()) : [];
      const missing = await missingScopedAgents(orgId, scopes, dataSql);
      if (missing.length) throw new Error(`No agent ${missing.join(", ")} in organization ${orgId}; a key can only be scoped to an existing agent`);
      const key = await insertApiKeySql({ orgId, role, name: values.name ?? `${role} key`, scopes });
      await sql(key.sql);
      return print({ id: key.id, org_id: orgId, role, key: key.secret, note: "The key is shown only now." });
    }
    case "list-keys":
      return print(
        await sql(`SELECT id, name, role, scopes, key_prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE org_id = ${lit(need("org"))} ORDER BY created_at`),
      );
    case "revoke-key":
      await sql(
        `UPDATE api_keys SET revoked_at = ${lit(new Date().toISOString())} WHERE org_id = ${lit(need("org"))} AND id = ${lit(need("id"))} AND revoked_at IS NULL`,
      );
      return print((await sql(`SELECT id, revoked_at FROM api_keys WHERE id = ${lit(need("id"))}`))[0]);
  }
}

async function main(): Promise<void> {
  const args = parseAdminArgs(process.argv.slice(2));
  if (args.kind === "help") return console.log(args.text);
  await run(args);
}

main().catch((err) => {
  if (err instanceof UsageError) {
    console.error(`Error: ${err.message}\n\n${err.usage}`);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
