// The local state both `npm start` (Miniflare) and `npm run dev` (wrangler dev) run on: one
// directory, `.wrangler/state` by default, where wrangler dev and `wrangler d1 … --local` keep
// theirs, so data, the seeded organization and its key carry over between the two and the
// admin CLI. This migrates its D1 databases (control and every shard) and seeds the development
// organization (placed on a shard), its admin key and the operator token of /admin.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateApiKey, isWellFormedApiKey } from "../../src/features/tenancy/auth/api-key-crypto";
import { type LogLevelName, parseLogLevel } from "./log-level";
import { insertApiKeySql, insertOrganizationSql } from "./records";
import { shardForNewOrg } from "./shards";
import { withMigratedD1 } from "./wrangler";

/** The variables these read (process.env, or a test's own): only the names they know. */
export type LocalEnv = Readonly<Record<string, string | undefined>>;

/** wrangler's default `--persist-to`, relative to wrangler.toml (the repository root). */
export const DEFAULT_STATE_DIR = ".wrangler/state";

/** STATE_DIR: the local state of `npm start`, `npm run dev` and the admin CLI. */
export function stateDirOf(env: LocalEnv): string {
  return env.STATE_DIR || DEFAULT_STATE_DIR;
}

/** What the operator sets for `npm start` and `npm run dev` (README, "Set up and run"). */
export interface LocalRunSettings {
  port: number;
  stateDir: string;
  logLevel: LogLevelName;
}

/** `freePort`: whether PORT=0 (any free port, reported once listening) is allowed. */
export function localRunSettings(env: LocalEnv, { freePort = true } = {}): LocalRunSettings {
  const port = Number(env.PORT || 8787);
  if (!Number.isInteger(port) || port < (freePort ? 0 : 1) || port > 65535) {
    throw new Error(`PORT must be a port number${freePort ? "" : " from 1 (npm run dev cannot report a free port; npm start can)"} (got "${env.PORT}")`);
  }
  return { port, stateDir: stateDirOf(env), logLevel: parseLogLevel(env.LOG_LEVEL) };
}

export interface DevCredentials {
  orgId: string;
  apiKey: string;
  /** The operator credential of /admin (`npm run admin -- move-org` reads it from the credentials file). */
  operatorToken: string;
}

/** Kept beside the state directory (`.wrangler/dev-credentials.json` for the default one). */
export function credentialsFile(stateDir: string): string {
  return path.join(path.dirname(path.resolve(stateDir)), "dev-credentials.json");
}

function devCredentials(stateDir: string, env: LocalEnv): DevCredentials {
  const file = credentialsFile(stateDir);
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<DevCredentials>) : undefined;
  const orgId = env.DEV_ORG_ID ?? saved?.orgId ?? "dev-org";
  const apiKey = env.DEV_API_KEY ?? saved?.apiKey ?? generateApiKey();
  if (!isWellFormedApiKey(apiKey)) {
    throw new Error("DEV_API_KEY must look like cdis_ followed by 43 base64url characters (npm run admin -- new-key-secret)");
  }
  const operatorToken = env.OPERATOR_TOKEN ?? saved?.operatorToken ?? generateApiKey();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ orgId, apiKey, operatorToken }, null, 2));
  return { orgId, apiKey, operatorToken };
}

/** Applies the D1 migrations in `stateDir` and seeds the development organization and admin key. */
export async function prepareDevState(stateDir: string, env: LocalEnv = process.env): Promise<DevCredentials> {
  return withMigratedD1({ persistTo: stateDir }, async (d1) => {
    const credentials = devCredentials(stateDir, env);
    // INSERT OR IGNORE on both rows (the key is unique by hash) makes seeding idempotent.
    const key = await insertApiKeySql({ orgId: credentials.orgId, name: "Development admin key", role: "admin", secret: credentials.apiKey });
    const shard = shardForNewOrg(undefined, await d1.execSql<{ shard: string; n: number }>("SELECT shard, COUNT(*) AS n FROM organizations GROUP BY shard"));
    await d1.execSql(`${insertOrganizationSql(credentials.orgId, "Development organization", shard)} ${key.sql}`);
    return credentials;
  });
}

export function welcome({ orgId, apiKey }: DevCredentials, port: number | string): string {
  return `
  Development organization: ${orgId}
  Admin API key:            ${apiKey}
  Service:                  http://localhost:${port}   (API docs: http://localhost:${port}/api/docs)

  curl -H "Authorization: Bearer ${apiKey}" -H "X-Organization-ID: ${orgId}" http://localhost:${port}/api/organization
`;
}
