// `npm run admin -- <command> [--flags]`: creates organizations and API keys,
// lists and revokes keys, against local D1 (default) or the deployed database (--remote); sets
// per-org limits, moves organizations between shards and purges expired AuditEvents through the
// service (operator routes, so each leaves its AuditEvent). The commands that change the databases
// themselves leave theirs too (lib/cli-audit.ts): the operator as agent, refusals with their reason.
import { generateApiKey } from "../src/features/tenancy/auth/api-key-crypto";
import { type AdminArgs, UsageError, parseAdminArgs } from "./lib/admin-args";
import { cliTrail, messageOf } from "./lib/cli-audit";
import { moveOrg, purgeAudit, setLimits } from "./lib/move-org";
import { stateDirOf } from "./lib/dev-state";
import { insertApiKeySql, insertOrganizationSql, missingScopedAgents } from "./lib/records";
import { shardDatabaseName, shardForNewOrg } from "./lib/shards";
import { lit } from "./lib/sql";
import { type D1Session, withMigratedD1 } from "./lib/wrangler";

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
  const shardSql = (shard: string) => (statement: string) => d1.execSql(statement, shardDatabaseName(shard));
  /** A query on the shard holding `orgId`'s data. */
  const orgSql = async (orgId: string) => {
    const shard = (await sql(`SELECT shard FROM organizations WHERE id = ${lit(orgId)}`))[0]?.shard;
    if (typeof shard !== "string") throw new Error(`No organization ${orgId}`);
    return shardSql(shard);
  };
  const { audit, refuse, recordOrUndo } = cliTrail({ command, remote, control: sql });
  switch (command) {
    case "create-org": {
      const id = values.id ?? crypto.randomUUID();
      const existing = (await sql(`SELECT shard FROM organizations WHERE id = ${lit(id)}`))[0]?.shard as string | undefined;
      const shard = existing ?? shardForNewOrg(values.shard, (await sql("SELECT shard, COUNT(*) AS n FROM organizations GROUP BY shard")) as { shard: string; n: number }[]);
      await sql(insertOrganizationSql(id, need("name"), shard, values.limits ? JSON.parse(values.limits) : {}));
      // An id already taken changes nothing (INSERT OR IGNORE): recorded as refused, in that organization's trail.
      if (existing) await audit(shardSql(shard), id, { action: "organization.create", entityId: id, outcome: "4", reason: "an organization with this id exists: nothing changed" });
      else await recordOrUndo(shardSql(shard), id, { action: "organization.create", entityId: id }, `DELETE FROM organizations WHERE id = ${lit(id)}`);
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
      const key = await (async () => {
        const missing = await missingScopedAgents(orgId, scopes, dataSql);
        if (missing.length) throw new Error(`No agent ${missing.join(", ")} in organization ${orgId}; a key can only be scoped to an existing agent`);
        return insertApiKeySql({ orgId, role, name: values.name ?? `${role} key`, scopes });
      })().catch((err: unknown) => refuse(dataSql, orgId, "api_key.create", err));
      await sql(key.sql);
      await recordOrUndo(dataSql, orgId, { action: "api_key.create", entityId: key.id }, `DELETE FROM api_keys WHERE id = ${lit(key.id)}`);
      return print({ id: key.id, org_id: orgId, role, key: key.secret, note: "The key is shown only now." });
    }
    case "list-keys":
      return print(
        await sql(`SELECT id, name, role, scopes, key_prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE org_id = ${lit(need("org"))} ORDER BY created_at`),
      );
    case "revoke-key": {
      const orgId = need("org");
      const id = need("id");
      const dataSql = await orgSql(orgId);
      const revoked = await sql(`UPDATE api_keys SET revoked_at = ${lit(new Date().toISOString())} WHERE org_id = ${lit(orgId)} AND id = ${lit(id)} AND revoked_at IS NULL RETURNING id`);
      if (revoked.length === 0) await refuse(dataSql, orgId, "api_key.revoke", new Error(`No active key ${id} in organization ${orgId}`), id);
      // A revocation is never undone (the key would work again): it stands, and the command fails saying so.
      await audit(dataSql, orgId, { action: "api_key.revoke", entityId: id, outcome: "0" }).catch((err: unknown) => {
        throw new Error(`revoke-key: the key is revoked, but its AuditEvent could not be written: ${messageOf(err)}`);
      });
      return print((await sql(`SELECT id, revoked_at FROM api_keys WHERE id = ${lit(id)}`))[0]);
    }
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
