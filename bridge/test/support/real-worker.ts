// The real Worker for end-to-end tests: bench/lib/worker.ts starts and seeds it; this adds
// stopping it without losing its state and starting it again on the same port and state.
import { type ChildProcess, spawn } from "node:child_process";
import { offlineEnv } from "../../../scripts/lib/wrangler";
import { REPO_ROOT } from "./child-bridge";
import { waitFor } from "./harness";

/** SIGTERMs a detached process group (wrangler and its workerd) and waits until it is gone. */
export async function stopProcessGroup(pid: number, timeoutMs = 15_000): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(-pid, "SIGTERM");
  try {
    await waitFor(() => !alive(), `process group ${pid} to exit`, timeoutMs, 100);
  } catch {
    // workerd ignoring SIGTERM must not leave a port and a state directory locked.
    if (alive()) process.kill(-pid, "SIGKILL");
  }
}

/** True when something answers GET {url}/health. */
export async function isUp(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

/**
 * Starts `wrangler dev --local` on `port` over an existing `--persist-to` directory (already
 * migrated and seeded), the way startWorker does, and waits for /health.
 */
export async function restartWorker(port: number, stateDir: string, timeoutMs = 60_000): Promise<ChildProcess> {
  const args = ["dev", "--local", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", stateDir];
  args.push("--var", "DEV_MODE:true", "--show-interactive-dev-session=false", "--log-level", "error");
  const child = spawn("wrangler", args, { cwd: REPO_ROOT, env: offlineEnv, stdio: ["ignore", "ignore", "inherit"], detached: true });
  const url = `http://127.0.0.1:${port}`;
  try {
    const started = async () => {
      if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
      return isUp(url);
    };
    await waitFor(started, `wrangler dev on port ${port}`, timeoutMs, 250);
  } catch (error) {
    if (child.pid) await stopProcessGroup(child.pid);
    throw error;
  }
  return child;
}
