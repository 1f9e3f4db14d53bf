// Starts a bridge in-process against a fake Worker with a temporary data directory, and
// polls for conditions instead of sleeping.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type RunningBridge, startBridge } from "../../src/bridge";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import type { FakeWorker } from "./fake-worker";

export function tempDir(prefix = "bridge-test-"): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Where a bridge forwards to: the fake Worker or a real one under `wrangler dev`. */
export type WorkerTarget = Pick<FakeWorker, "url" | "apiKey" | "orgId">;

/** Env for a bridge on free loopback ports, forwarding to `worker`, with fast retries. */
export function bridgeEnv(worker: WorkerTarget, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    WORKER_URL: worker.url,
    BRIDGE_API_KEY: worker.apiKey,
    BRIDGE_ORG_ID: worker.orgId,
    BRIDGE_DATA_DIR: dataDir,
    MLLP_PORT: "0",
    STATUS_PORT: "0",
    RETRY_BASE_MS: "20",
    RETRY_MAX_MS: "200",
    MISCONFIGURED_RETRY_MS: "200",
    REQUEST_TIMEOUT_MS: "5000",
    LOG_LEVEL: "error",
    ...extra,
  };
}

export async function startTestBridge(
  worker: FakeWorker,
  extra: Record<string, string> = {},
): Promise<{ bridge: RunningBridge; dataDir: string; stop(): Promise<void> }> {
  const temp = tempDir();
  const config = loadConfig([], bridgeEnv(worker, temp.dir, extra) as NodeJS.ProcessEnv);
  const bridge = await startBridge(config, createLogger(config.logLevel));
  return {
    bridge,
    dataDir: temp.dir,
    stop: async () => {
      await bridge.stop();
      temp.remove();
    },
  };
}

/** Polls `check` until it returns a truthy value; fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  label: string,
  timeoutMs = 30_000,
  intervalMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export async function getJson<T>(port: number, pathname: string, method = "GET"): Promise<{ status: number; body: T }> {
  const response = await fetch(`http://127.0.0.1:${port}${pathname}`, { method });
  return { status: response.status, body: (await response.json()) as T };
}
