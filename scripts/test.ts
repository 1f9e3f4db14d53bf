// `npm test`: the whole suite in four parts on two lanes that run at the same time, since much of
// its wall time is waiting (loopback peers, queue deliveries, alarms, child processes):
//   worker-1, worker-2: the two halves (vitest --shard) of the Worker projects (worker,
//            worker-isolated), three files at once (vitest.config.ts);
//   node:    the unit projects (the pure files two at once, those starting processes one at a
//            time) and the bridge project, a file at a time;
//   service: the console build, then the interop and browser projects against one service.
// Each lane takes the next part when it is free, in plan()'s order, so neither lane waits while the
// other has work: lane 1 worker-1 then service, lane 2 node then worker-2 (docs/testing.md has the
// figures). The parts share nothing a test depends on: the
// Worker projects' Miniflares serve a fixed stand-in for the console, every loopback peer listens
// on a port of its own, and a console build never leaves console/dist empty
// (scripts/lib/console-build.ts). Each line is prefixed with its part; a failure fails the run,
// after every part has finished. Each step is supervised (scripts/lib/supervised-run.ts): a vitest
// that wrote its report but does not exit, or a step silent for minutes, is stopped with its
// processes listed, so a hang ends the step instead of the CI run's budget. At the end: each part's and lane's wall time and the ten slowest
// files (from vitest's JSON reports).
//
// The inner loop (docs/testing.md):
//   npm test -- <path or area>...   only those files, in the parts that run them: a path is a file
//                                   or folder; an area (devices) is every test file with that
//                                   folder in its path or that name before .test.ts
//                                   (scripts/lib/test-selection.ts).
//   npm run test:changed [-- ref]   what a change touches: vitest --changed (uncommitted changes,
//                                   or since ref) in every project, through the module graph; the
//                                   whole service part when console/ changed.
// Arguments after a second `--` go to every vitest run (npm test -- devices -- -t "sync").
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { stopAllRuns, supervisedRun } from "./lib/supervised-run";
import { selectTests } from "./lib/test-selection";

const ROOT = path.resolve(import.meta.dirname, "..");
const REPORTS = path.join(ROOT, ".tmp/test-reports");
const LANES = 2;
const SLOWEST = 10;

/** An npm script, or one vitest run (its arguments after `vitest run`). */
type Step = { script: string } | { vitest: string[] };

/** A part of the suite: its steps run one after another, in one lane. */
interface Part {
  name: string;
  steps: Step[];
}

const WORKER_PROJECTS = ["--project", "worker", "--project", "worker-isolated"];
const NODE_PROJECTS = ["--project", "unit", "--project", "unit-processes", "--project", "bridge"];
/** One vitest process for both: they share the service and Chromium test/browser/setup/service.ts starts. */
const SERVICE_PROJECTS = ["--project", "interop", "--project", "browser"];
const CONSOLE_BUILD: Step = { script: "console:build" };

const [ownArgs, vitestArgs] = splitArgs(process.argv.slice(2));

function splitArgs(args: string[]): [string[], string[]] {
  const at = args.indexOf("--");
  return at < 0 ? [args, []] : [args.slice(0, at), args.slice(at + 1)];
}

const toPosix = (p: string) => p.split(path.sep).join("/");

/** The files git sees as changed: uncommitted (staged, unstaged, untracked), or since `ref`. */
function changedFiles(ref: string | undefined): string[] {
  const git = (args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout.split("\n").filter(Boolean);
  return [...git(["diff", "--name-only", ...(ref ? [ref] : ["HEAD"])]), ...git(["ls-files", "--others", "--exclude-standard"])];
}

/** The parts to run, in the order lanes take them. */
function plan(): Part[] {
  if (ownArgs[0] === "--changed") {
    const ref = ownArgs[1];
    const changed = ["--changed", ...(ref ? [ref] : []), "--passWithNoTests"];
    const consoleChanged = changedFiles(ref).some((f) => f.startsWith("console/"));
    return [
      { name: "worker", steps: [{ vitest: [...WORKER_PROJECTS, ...changed] }] },
      { name: "node", steps: [{ vitest: [...NODE_PROJECTS, ...changed] }] },
      { name: "service", steps: consoleChanged ? [CONSOLE_BUILD, { vitest: SERVICE_PROJECTS }] : [{ vitest: [...SERVICE_PROJECTS, ...changed] }] },
    ];
  }
  if (ownArgs.length === 0) {
    // Worker, node and service are close in length, so two lanes would leave one idle for a third
    // of the run; halving the Worker files lets each lane end with a half.
    return [
      { name: "worker-1", steps: [{ vitest: [...WORKER_PROJECTS, "--shard=1/2"] }] },
      { name: "node", steps: [{ vitest: NODE_PROJECTS }] },
      { name: "service", steps: [CONSOLE_BUILD, { vitest: SERVICE_PROJECTS }] },
      { name: "worker-2", steps: [{ vitest: [...WORKER_PROJECTS, "--shard=2/2"] }] },
    ];
  }
  const chosen = selectTests(ROOT, ownArgs);
  const parts: Part[] = [
    ...(chosen.worker.length ? [{ name: "worker", steps: [{ vitest: [...WORKER_PROJECTS, ...chosen.worker] }] }] : []),
    ...(chosen.node.length ? [{ name: "node", steps: [{ vitest: [...NODE_PROJECTS, ...chosen.node] }] }] : []),
    ...(chosen.service.length ? [{ name: "service", steps: [CONSOLE_BUILD, { vitest: [...SERVICE_PROJECTS, ...chosen.service] }] }] : []),
  ];
  if (!parts.length) {
    console.error(`No test file is in ${ownArgs.join(", ")} (a path, or an area: a folder or file name under test/ or bridge/test/).`);
    process.exit(1);
  }
  return parts;
}

/**
 * A vitest run that wrote its report has this long to exit before it is stopped (its report is its
 * outcome); a step silent this long is hung. The longest quiet stretch a healthy run has is the
 * service's start (its hook budget, 180 s) or one slow file on a loaded machine (vitest prints a
 * file when it ends; the slowest take 80 s here).
 */
const GRACE_MS = 60_000;
const SILENCE_MS = 8 * 60_000;

/** Runs a command, supervised (scripts/lib/supervised-run.ts); resolves with its exit code. */
async function run(part: string, command: string, args: string[], report?: string): Promise<number> {
  const result = await supervisedRun({ label: part, command, args, cwd: ROOT, report, graceMs: GRACE_MS, silenceMs: SILENCE_MS });
  if (result.stopped) stoppedSteps.push(`${part}: ${result.stopped}`);
  return result.code;
}

/** Steps the supervisor had to stop, listed again at the end so a hang is not lost in the output. */
const stoppedSteps: string[] = [];

interface PartResult {
  name: string;
  lane: number;
  failed: string[];
  seconds: number;
  reports: string[];
}

/** Runs a part's steps one after another; a failure does not skip the rest (every failure is reported). */
async function runPart({ name, steps }: Part, lane: number): Promise<PartResult> {
  const started = Date.now();
  const failed: string[] = [];
  const reports: string[] = [];
  for (const [i, step] of steps.entries()) {
    if ("script" in step) {
      if ((await run(name, "npm", ["run", "--silent", step.script])) !== 0) failed.push(step.script);
      continue;
    }
    const report = path.join(REPORTS, `${name}-${i}.json`);
    reports.push(report);
    const args = ["vitest", "run", ...step.vitest, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...vitestArgs];
    if ((await run(name, "npx", args, report)) !== 0) failed.push(`vitest ${step.vitest.filter((_, j) => step.vitest[j - 1] === "--project").join(" ")}`);
  }
  return { name, lane, failed, seconds: Math.round((Date.now() - started) / 1000), reports };
}

/** Runs the parts on LANES lanes, each lane taking the next part as soon as it is free. */
async function runLanes(parts: Part[]): Promise<PartResult[]> {
  const queue = [...parts];
  const results: PartResult[] = [];
  const lane = async (n: number) => {
    for (let part = queue.shift(); part; part = queue.shift()) results.push(await runPart(part, n));
  };
  await Promise.all(Array.from({ length: Math.min(LANES, parts.length) }, (_, i) => lane(i + 1)));
  return results;
}

/** Each file's duration from the parts' vitest JSON reports, slowest first. */
function slowest(results: PartResult[]): { part: string; file: string; seconds: number }[] {
  const rows = results.flatMap((r) =>
    r.reports.filter((f) => existsSync(f)).flatMap((f) => {
      const report = JSON.parse(readFileSync(f, "utf8")) as { testResults?: { name: string; startTime: number; endTime: number }[] };
      return (report.testResults ?? []).map((t) => ({ part: r.name, file: toPosix(path.relative(ROOT, t.name)), seconds: (t.endTime - t.startTime) / 1000 }));
    }),
  );
  return rows.sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
}

const minutes = (s: number) => `${Math.floor(s / 60)} min ${s % 60} s`;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopAllRuns();
    process.exit(130);
  });
}
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });
const started = Date.now();
const results = await runLanes(plan());
for (const r of results) console.log(`${r.name}: ${r.failed.length ? `FAILED (${r.failed.join(", ")})` : "passed"} in ${minutes(r.seconds)} (lane ${r.lane})`);
for (const lane of [...new Set(results.map((r) => r.lane))].sort()) {
  const parts = results.filter((r) => r.lane === lane);
  console.log(`lane ${lane}: ${parts.map((r) => r.name).join(" then ")}, ${minutes(parts.reduce((s, r) => s + r.seconds, 0))}`);
}
for (const s of stoppedSteps) console.log(`stopped by the supervisor: ${s}`);
console.log(`npm test: ${minutes(Math.round((Date.now() - started) / 1000))}`);
const slow = slowest(results);
if (slow.length) {
  console.log("The slowest files:");
  for (const s of slow) console.log(`  ${s.seconds.toFixed(1).padStart(6)} s  ${s.part.padEnd(8)}  ${s.file}`);
}
process.exit(results.some((r) => r.failed.length) ? 1 : 0);
