// Runs bridge/src/main.ts as a child process (Node + tsx), the way `npm run bridge` does,
// and reads the bound ports from its first stdout line.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
export const BRIDGE_MAIN = path.join(REPO_ROOT, "bridge/src/main.ts");

export interface ChildBridge {
  child: ChildProcess;
  mllpPort: number;
  statusPort: number;
  /** What the child wrote on stderr, for failure messages. */
  stderr(): string;
  exited: Promise<number | string | null>;
}

/** Starts `entry` (default: the bridge) and waits for its {"event":"listening"} line. */
export async function spawnBridge(
  env: Record<string, string>,
  entry = BRIDGE_MAIN,
  startTimeoutMs = 30_000,
): Promise<ChildBridge> {
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", "--import", "tsx", entry], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise<number | string | null>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ports = await new Promise<{ mllp_port: number; status_port: number }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`bridge did not start within ${startTimeoutMs} ms: ${stderr}`));
    }, startTimeoutMs);
    lines.on("line", (line) => {
      const parsed = JSON.parse(line) as { event?: string; mllp_port: number; status_port: number };
      if (parsed.event !== "listening") return;
      clearTimeout(timer);
      resolve(parsed);
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`bridge exited (${code}) before listening: ${stderr}`));
    });
  });
  return { child, mllpPort: ports.mllp_port, statusPort: ports.status_port, stderr: () => stderr, exited };
}

/** Stops the child with `signal` and waits for it to exit. */
export async function stopBridge(bridge: ChildBridge, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (bridge.child.exitCode === null && bridge.child.signalCode === null) bridge.child.kill(signal);
  await bridge.exited;
}
