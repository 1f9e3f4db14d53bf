// `npm start`: runs the whole service locally on workerd, offline. Applies D1
// migrations, seeds a development organization and admin key (idempotently),
// prints them, then starts `wrangler dev --local` and fires the Worker's cron
// triggers at each minute (wrangler dev does not).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { unstable_readConfig } from "wrangler";
import { generateApiKey, isWellFormedApiKey } from "../src/features/tenancy/auth/api-key-crypto";
import { startCronTicker } from "./lib/cron-ticker";
import { insertApiKeySql, insertOrganizationSql } from "./lib/records";
import { applyMigrations, execSql, startWrangler } from "./lib/wrangler";

const CREDENTIALS_FILE = ".wrangler/dev-credentials.json";
const port = process.env.PORT ?? "8787";

function devCredentials(): { orgId: string; apiKey: string } {
  const saved = existsSync(CREDENTIALS_FILE)
    ? (JSON.parse(readFileSync(CREDENTIALS_FILE, "utf8")) as { orgId: string; apiKey: string })
    : undefined;
  const orgId = process.env.DEV_ORG_ID ?? saved?.orgId ?? "dev-org";
  const apiKey = process.env.DEV_API_KEY ?? saved?.apiKey ?? generateApiKey();
  if (!isWellFormedApiKey(apiKey)) {
    throw new Error("DEV_API_KEY must look like cdis_ followed by 43 base64url characters (npm run admin -- new-key-secret)");
  }
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(CREDENTIALS_FILE, JSON.stringify({ orgId, apiKey }, null, 2));
  return { orgId, apiKey };
}

/** Waits until wrangler dev answers (the first build takes a while); false if it exited. */
async function listening(url: string, exited: () => boolean): Promise<boolean> {
  while (!exited()) {
    try {
      await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return false;
}

async function main() {
  console.log("Applying D1 migrations to the local database…");
  applyMigrations();
  const { orgId, apiKey } = devCredentials();
  // INSERT OR IGNORE on both rows (the key is unique by hash) makes seeding idempotent.
  const { sql } = await insertApiKeySql({ orgId, name: "Development admin key", role: "admin", secret: apiKey });
  execSql(`${insertOrganizationSql(orgId, "Development organization")} ${sql}`);
  console.log(`
  Development organization: ${orgId}
  Admin API key:            ${apiKey}
  Service:                  http://localhost:${port}   (API docs: http://localhost:${port}/api/docs)

  curl -H "Authorization: Bearer ${apiKey}" -H "X-Organization-ID: ${orgId}" http://localhost:${port}/api/organization
`);
  const crons: string[] = unstable_readConfig({ config: "wrangler.toml" }).triggers.crons ?? [];
  const child = startWrangler(["dev", "--local", "--port", port, "--var", "DEV_MODE:true", "--show-interactive-dev-session=false"]);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code) => process.exit(code ?? 0));
  const url = `http://127.0.0.1:${port}`;
  if (await listening(url, () => child.exitCode !== null)) {
    startCronTicker({ url, crons, log: (line) => console.log(`[cron] ${line}`) });
    console.log(`[cron] firing the scheduled handler locally at each minute for ${crons.map((c) => `"${c}"`).join(", ")} (wrangler.toml [triggers])`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
