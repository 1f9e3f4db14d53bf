// The service the fuzzer runs against: npm start's runtime (the production bundle on Miniflare,
// with its watchdog) on a fresh temporary state, with the development organization seeded and
// the rate limits raised past what a fuzz run sends, so it reaches the handlers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Log, LogLevel } from "miniflare";
import { prepareDevState } from "./dev-state";
import type { FuzzTarget } from "./fuzz";
import { startMiniflareRuntime } from "./miniflare-runtime";

export interface FuzzService extends FuzzTarget {
  /** Lines workerd and the watchdog logged at warn and above. */
  lines: string[];
  restarts(): number;
  stop(): Promise<void>;
}

class KeptLog extends Log {
  lines: string[] = [];
  protected override log(message: string): void {
    this.lines.push(message);
  }
}

export async function startFuzzService(): Promise<FuzzService> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "cdis-fuzz-"));
  const credentials = await prepareDevState(stateDir, {});
  const log = new KeptLog(LogLevel.WARN);
  const runtime = await startMiniflareRuntime({
    port: 0,
    stateDir,
    logLevel: "error",
    log,
    vars: { DEV_MODE: "true", LIMIT_API_PER_MINUTE: "1000000", LIMIT_PUBLIC_PER_MINUTE: "1000000", LIMIT_COPILOT_PER_MINUTE: "100000", LIMIT_AGENT_CHAT_PER_MINUTE: "100000" },
  });
  return {
    baseUrl: runtime.url,
    orgId: credentials.orgId,
    apiKey: credentials.apiKey,
    lines: log.lines,
    restarts: () => runtime.restarts,
    async stop() {
      try {
        await runtime.stop();
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    },
  };
}
