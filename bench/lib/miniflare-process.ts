// `npm start`'s runtime in a process of its own for the benchmarks (startWorker with runtime
// "miniflare"), so the load generator does not share its event loop. Arguments: --port,
// --state (a state directory already migrated and seeded), --log-level, --vars (JSON), --entry,
// --inspector-port (profiles).
import { parseLogLevel } from "../../scripts/lib/log-level";
import { startMiniflareRuntime } from "../../scripts/lib/miniflare-runtime";
import { stopOnSignals } from "../../scripts/lib/stop-on-signals";
import { option } from "./options";

const stateDir = option("state");
if (!stateDir) throw new Error("--state is required");
const runtime = await startMiniflareRuntime({
  port: Number(option("port") ?? 0),
  stateDir,
  logLevel: parseLogLevel(option("log-level") ?? "none"),
  vars: JSON.parse(option("vars") ?? "{}") as Record<string, string>,
  ...(option("entry") ? { entry: option("entry") } : {}),
  ...(option("inspector-port") ? { inspectorPort: Number(option("inspector-port")) } : {}),
});
stopOnSignals(runtime);
