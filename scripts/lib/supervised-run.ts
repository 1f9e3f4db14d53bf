// One step of `npm test` (scripts/test.ts) as a supervised child: its own process group, its lines
// prefixed with the part's name, and two ways out of a hang, since a vitest run on the Workers
// plugin can stop without exiting (workers-sdk#14903: after every file passed, a workerd left
// alive keeps vitest from exiting; #15498: silence mid-run). CI gives the whole run a fixed budget,
// so a hang must end the step, say what was running, and leave no process behind:
//   - the report: once vitest has written its JSON report, the run is over; if it has not exited
//     `graceMs` later, its processes are listed and stopped, and the step's outcome is the report's;
//   - silence: a step that prints nothing for `silenceMs` is listed, stopped and failed.
// Whatever the step leaves in its group when it exits (an orphaned workerd) is stopped too. Being
// its own group, a step no longer gets the terminal's Ctrl-C: stopAllRuns passes it on.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

export interface SupervisedRun {
  /** Prefix of every line the step and the supervisor print. */
  label: string;
  command: string;
  args: string[];
  cwd: string;
  /** The vitest JSON report the step writes as it finishes, if it is a vitest run. */
  report?: string;
  graceMs: number;
  silenceMs: number;
  /** How often the supervisor looks; 1 s unless a test needs it shorter. */
  pollMs?: number;
  log?(line: string): void;
}

export interface SupervisedResult {
  code: number;
  /** Set when the supervisor had to stop the step: why. */
  stopped?: string;
}

/** The report's verdict once it is whole: true (every test passed), false, or undefined (not written yet). */
function reportVerdict(file: string): boolean | undefined {
  try {
    const report = JSON.parse(readFileSync(file, "utf8")) as { success?: unknown };
    return typeof report.success === "boolean" ? report.success : undefined;
  } catch {
    return undefined;
  }
}

/** The processes of a group, as ps shows them (CPU time shows which one spins). */
function groupProcesses(pgid: number): string[] {
  const ps = spawnSync("ps", ["-eo", "pid,pgid,ppid,etime,time,pcpu,stat,args", "--no-headers"], { encoding: "utf8" });
  return ps.stdout.split("\n").filter((line) => line.trim().split(/\s+/)[1] === String(pgid));
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: the group is empty already.
  }
}

/** The process groups of the steps under way. */
const running = new Set<number>();

/** Stops every step under way (npm test on SIGINT or SIGTERM). */
export function stopAllRuns(): void {
  for (const pgid of running) killGroup(pgid);
}

export function supervisedRun(opts: SupervisedRun): Promise<SupervisedResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const say = (line: string) => log(`[${opts.label}] ${line}`);
  return new Promise((resolve) => {
    const child = spawn(opts.command, opts.args, { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    if (child.pid) running.add(child.pid);
    let lastOutput = Date.now();
    let reportSeen: number | undefined;
    let settled = false;
    const finish = (result: SupervisedResult) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      if (child.pid) {
        killGroup(child.pid);
        running.delete(child.pid);
      }
      resolve(result);
    };
    const stop = (why: string, code: number) => {
      const pgid = child.pid ?? 0;
      say(`${why}; its processes:`);
      for (const line of groupProcesses(pgid)) say(`  ${line}`);
      say("stopping them");
      finish({ code, stopped: why });
    };
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        lastOutput = Date.now();
        say(line);
      });
    }
    child.on("error", (err) => {
      say(`${opts.command} did not start: ${err.message}`);
      finish({ code: 1 });
    });
    // "exit", not "close": whatever the step left behind may hold the output open; finish stops it.
    child.on("exit", (code, signal) => finish({ code: code ?? (signal ? 1 : 0) }));
    const timer = setInterval(() => {
      const now = Date.now();
      if (opts.report && reportSeen === undefined && reportVerdict(opts.report) !== undefined) reportSeen = now;
      if (reportSeen !== undefined && now - reportSeen >= opts.graceMs) {
        const passed = reportVerdict(opts.report ?? "") === true;
        stop(`vitest wrote its report (${passed ? "every test passed" : "with failures"}) but had not exited ${Math.round(opts.graceMs / 1000)} s later`, passed ? 0 : 1);
      } else if (reportSeen === undefined && now - lastOutput >= opts.silenceMs) {
        stop(`printed nothing for ${Math.round(opts.silenceMs / 1000)} s: hung`, 1);
      }
    }, opts.pollMs ?? 1_000);
  });
}
