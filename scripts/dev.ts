// `npm run dev`: the service under `wrangler dev --local`, which rebuilds and reloads the Worker
// when a source file changes. Migrates and seeds the same local state as `npm start`, prints the
// development organization and key, and fires the Worker's cron triggers at each minute through
// wrangler dev's trigger endpoint (wrangler dev never does).
import { unstable_readConfig } from "wrangler";
import { startCronTicker } from "./lib/cron-ticker";
import { localRunSettings, prepareDevState, welcome } from "./lib/dev-state";
import { buildConsole } from "./lib/console-build";
import { startWrangler } from "./lib/wrangler";

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
  // The ticker and the printed URL need the port up front (wrangler dev does not report a free one).
  const { port, stateDir, logLevel } = localRunSettings(process.env, { freePort: false });
  console.log("Applying D1 migrations to the local databases (control and every shard)…");
  const credentials = await prepareDevState(stateDir);
  console.log("Building the web console (console/ → console/dist)…");
  buildConsole();
  console.log(welcome(credentials, port));
  const crons: string[] = unstable_readConfig({ config: "wrangler.toml" }).triggers.crons ?? [];
  const child = startWrangler(["dev", "--local", "--port", String(port), "--persist-to", stateDir, "--log-level", logLevel, "--var", "DEV_MODE:true", "--var", `LOG_LEVEL:${logLevel}`, "--var", `OPERATOR_TOKEN:${credentials.operatorToken}`, "--show-interactive-dev-session=false", "--test-scheduled"]);
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
