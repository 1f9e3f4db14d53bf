// The admin CLI (`npm run admin`, scripts/admin.ts) as a function: the arguments in, the exit code
// out, its output through `io`. The entry runs it on the process; tests run it in-process, several
// commands on one open local D1 (test/unit/scripts/admin.test.ts), and the process once. The
// commands that change the databases themselves leave their AuditEvents (cli-audit.ts): the
// operator as agent, refusals with their reason.
import { generateApiKey } from "../../src/features/tenancy/auth/api-key-crypto";
import { type AdminArgs, UsageError, parseAdminArgs } from "./admin-args";
import { cliTrail, messageOf } from "./cli-audit";
import { stateDirOf } from "./dev-state";
import { moveOrg, purgeAudit, setLimits } from "./move-org";
import { insertApiKeySql, insertOrganizationSql, missingScopedAgents } from "./records";
import { shardDatabaseName, shardForNewOrg } from "./shards";
import { lit } from "./sql";
import { type D1Session, withMigratedD1 } from "./wrangler";

export interface AdminIo {
  /** Standard output and error, a line (or block) at a time. */
  out(text: string): void;
  err(text: string): void;
  /** Local databases already open and migrated, instead of opening STATE_DIR's for the command. */
  d1?: D1Session;
}

type RunArgs = Extract<AdminArgs, { kind: "run" }>;

/** Runs one admin command; 0 done, 1 failed, 2 usage error (with the usage on `err`). */
export async function adminCli(argv: string[], io: AdminIo): Promise<number> {
  try {
    const args = parseAdminArgs(argv);
    if (args.kind === "help") io.out(args.text);
    else if (args.command === "new-key-secret") io.out(generateApiKey());
    else if (io.d1 && !args.remote) await runOn(io.d1, args, io);
    // Locally, the state npm start and npm run dev use (STATE_DIR).
    else await withMigratedD1(args.remote ? { remote: true } : { persistTo: stateDirOf(process.env) }, (d1) => runOn(d1, args, io));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`Error: ${err.message}\n\n${err.usage}`);
      return 2;
    }
    io.err(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

async function runOn(d1: D1Session, { command, values, remote }: RunArgs, io: AdminIo): Promise<void> {
  const print = (value: unknown) => io.out(JSON.stringify(value, null, 2));
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
