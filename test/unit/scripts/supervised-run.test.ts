// npm test's step supervisor (scripts/lib/supervised-run.ts) against real child processes: a vitest
// stand-in that writes its report and then never exits (workers-sdk#14903), one that goes silent,
// and one that exits leaving a child behind. Each must end with no process of its group alive.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type SupervisedRun, supervisedRun } from "../../../scripts/lib/supervised-run";

const dir = mkdtempSync(path.join(tmpdir(), "supervised-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A node child running `script`; it starts a grandchild that would live for a minute, and prints its pid. */
function child(script: string, extra: Partial<SupervisedRun> = {}) {
  const lines: string[] = [];
  const spawnOrphan = `const o = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" }); console.log("orphan " + o.pid);`;
  const run = supervisedRun({
    label: "t",
    command: process.execPath,
    args: ["-e", `${spawnOrphan} ${script}`],
    cwd: dir,
    graceMs: 300,
    silenceMs: 1_500,
    pollMs: 50,
    log: (line) => lines.push(line),
    ...extra,
  });
  return { run, lines };
}

/** Whether a process runs; a zombie (killed, not yet reaped by a PID 1 that may never reap) does not. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

const orphanPid = (lines: string[]) => Number(lines.find((l) => l.startsWith("[t] orphan "))?.split(" ")[2]);

describe("supervisedRun", () => {
  it("stops a run that wrote a passing report but does not exit, takes the report's outcome and lists its processes", async () => {
    const report = path.join(dir, "passing.json");
    const { run, lines } = child(`require("node:fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify({ success: true })); setInterval(() => {}, 1000);`, { report });
    const result = await run;
    expect(result.code).toBe(0);
    expect(result.stopped).toMatch(/wrote its report \(every test passed\) but had not exited/);
    expect(lines.some((l) => l.includes("setTimeout(() => {}, 60000)"))).toBe(true);
    await expect.poll(() => alive(orphanPid(lines))).toBe(false);
  });

  it("fails a run whose report has failures when it does not exit", async () => {
    const report = path.join(dir, "failing.json");
    const { run } = child(`require("node:fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify({ success: false })); setInterval(() => {}, 1000);`, { report });
    expect(await run).toMatchObject({ code: 1, stopped: expect.stringMatching(/with failures/) });
  });

  it("stops and fails a step that prints nothing for the silence limit", async () => {
    const { run, lines } = child("setInterval(() => {}, 1000);");
    const result = await run;
    expect(result).toMatchObject({ code: 1, stopped: expect.stringMatching(/printed nothing for 2 s: hung/) });
    await expect.poll(() => alive(orphanPid(lines))).toBe(false);
  });

  it("passes on a step's own exit code with its lines prefixed, and stops what it left behind", async () => {
    const { run, lines } = child(`console.log("done"); setTimeout(() => process.exit(3), 100);`);
    expect(await run).toEqual({ code: 3 });
    expect(lines).toContain("[t] done");
    await expect.poll(() => alive(orphanPid(lines))).toBe(false);
  });

  it("reports a command that cannot start", async () => {
    const lines: string[] = [];
    const result = await supervisedRun({ label: "t", command: path.join(dir, "no-such-command"), args: [], cwd: dir, graceMs: 100, silenceMs: 1_000, log: (l) => lines.push(l) });
    expect(result.code).toBe(1);
    expect(lines.join("\n")).toMatch(/did not start/);
  });
});
