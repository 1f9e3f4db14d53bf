// `npm test`: the whole suite as two lanes that run at the same time, since much of its wall time
// is waiting (loopback peers, queue deliveries, alarms, child processes), not computing.
//   worker: `npm run test:worker`, the Worker project, several files at once (vitest.config.ts).
//   node:   `npm run test:node`, the Node projects (unit, interop, bridge) one file at a time,
//           then `npm run test:browser` (the console build, then the browser project).
// The lanes share nothing a test depends on: the Worker project's Miniflares serve a fixed
// stand-in for the console, every loopback peer listens on a port of its own, and a console
// build in the node lane never leaves console/dist empty (scripts/lib/console-build.ts). Each
// line is prefixed with its lane; a lane's failure fails the run, after both have finished.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const ROOT = path.resolve(import.meta.dirname, "..");

interface Lane {
  name: string;
  scripts: string[];
}

const LANES: Lane[] = [
  { name: "worker", scripts: ["test:worker"] },
  { name: "node", scripts: ["test:node", "test:browser"] },
];

/** Runs one npm script with its output prefixed by the lane's name; resolves with its exit code. */
function runScript(lane: string, script: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on("line", (line) => console.log(`[${lane}] ${line}`));
    child.on("error", (err) => {
      console.log(`[${lane}] ${script} did not start: ${err.message}`);
      resolve(1);
    });
    // "exit", not "close": a process a failed test left behind (a wrangler dev whose start timed
    // out) can hold the inherited output open long after vitest is done.
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Runs a lane's scripts one after another; a failure does not skip the rest (every failure is reported). */
async function runLane({ name, scripts }: Lane): Promise<{ name: string; failed: string[]; seconds: number }> {
  const started = Date.now();
  const failed: string[] = [];
  for (const script of scripts) if ((await runScript(name, script)) !== 0) failed.push(script);
  return { name, failed, seconds: Math.round((Date.now() - started) / 1000) };
}

const results = await Promise.all(LANES.map(runLane));
for (const r of results) console.log(`${r.name} lane: ${r.failed.length ? `FAILED (${r.failed.join(", ")})` : "passed"} in ${Math.floor(r.seconds / 60)} min ${r.seconds % 60} s`);
process.exit(results.some((r) => r.failed.length) ? 1 : 0);
