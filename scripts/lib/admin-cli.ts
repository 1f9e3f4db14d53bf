// The admin CLI (`npm run admin`, scripts/admin.ts) as a function: the arguments in, the exit code
// out, its output through `io`. The entry runs it on the process; tests run it in-process, several
// commands on one open local D1 (test/unit/scripts/admin.test.ts), and the process once.
import { generateApiKey } from "../../src/features/tenancy/auth/api-key-crypto";
import { type AdminArgs, UsageError, parseAdminArgs } from "./admin-args";
import { stateDirOf } from "./dev-state";
import { moveOrg, purgeAudit, setLimits } from "./move-org";
import { insertApiKeySql, insertOrganizationSql, missingScopedAgents } from "./records";
import { shardDatabaseName, shardForNewOrg } from "./shards";
import { type D1Session, lit, withMigratedD1 } from "./wrangler";

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

