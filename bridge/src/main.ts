// Entry point of `npm run bridge`: load the configuration, start the bridge, print the bound
// ports as one JSON line on stdout (supervisors and tests read it), stop cleanly on SIGTERM/SIGINT.
import { startBridge } from "./bridge";
import { ConfigError, loadConfig, usage } from "./config";
import { createLogger } from "./log";

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help")) {
    process.stdout.write(usage());
    return;
  }
  const config = loadConfig(argv, process.env);
  const log = createLogger(config.logLevel);
  const bridge = await startBridge(config, log);
  process.stdout.write(
    `${JSON.stringify({ event: "listening", mllp_port: bridge.mllpPort, status_port: bridge.statusPort, listeners: bridge.listeners })}\n`,
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("bridge_stopping", { signal });
    bridge.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error("stop_failed", { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || (error instanceof Error && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
    process.stderr.write(`bridge: ${error.message}\n\n${usage()}`);
    process.exit(2);
  }
  process.stderr.write(`bridge: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
