// `npm start`: the service locally, the fastest faithful way, offline. Migrates and seeds the
// local state (scripts/lib/dev-state.ts), prints the development organization and key, then runs
// the production bundle on Miniflare directly with the cron ticked at each minute
// (scripts/lib/miniflare-runtime.ts), watched by a watchdog that restarts workerd when a request
// holds its only thread (scripts/lib/watchdog.ts). `npm run dev` (scripts/dev.ts) is wrangler dev, for live reload.
import { localRunSettings, prepareDevState, welcome } from "./lib/dev-state";
import { buildConsole } from "./lib/console-build";
import { startMiniflareRuntime } from "./lib/miniflare-runtime";
import { stopOnSignals } from "./lib/stop-on-signals";
import { watchdogSeconds } from "./lib/watchdog";

async function main() {
  const { port, stateDir, logLevel } = localRunSettings(process.env);
  const watchdog = watchdogSeconds(process.env);
  console.log("Applying D1 migrations to the local databases (control and every shard)…");
  const credentials = await prepareDevState(stateDir);
  console.log("Building the web console (console/ → console/dist)…");
  buildConsole();
  console.log("Building the Worker bundle…");
  const runtime = await startMiniflareRuntime({ port, stateDir, logLevel, vars: { DEV_MODE: "true", OPERATOR_TOKEN: credentials.operatorToken }, watchdogSeconds: watchdog });
  console.log(welcome(credentials, new URL(runtime.url).port));
  console.log(`[cron] firing the scheduled handler locally at each minute for ${runtime.crons.map((c) => `"${c}"`).join(", ")} (wrangler.toml [triggers])`);
  if (watchdog > 0) console.log(`[watchdog] workerd is restarted if it answers nothing for ${watchdog} s (WATCHDOG_SECONDS; scripts/lib/watchdog.ts)`);
  stopOnSignals(runtime);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
