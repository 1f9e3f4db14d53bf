// Which test files `npm test -- <path or area>...` runs in each lane (scripts/test.ts): the files
// vitest.config.ts's projects include (test/projects.ts), narrowed to the targets. A target that
// exists is a path (a file, or every file under a folder); any other is an area: every test file
// with a folder of that name in its path, or with that name before .test.ts (devices: test/devices/**,
// test/unit/devices/**, test/browser/devices.test.ts; an area's own `devices-*.test.ts` too).
import { existsSync, globSync, statSync } from "node:fs";
import path from "node:path";
import { NODE_INCLUDE, WORKER_EXCLUDE, WORKER_INCLUDE } from "../../test/projects";

export interface Selection {
  /** Worker files (the worker and worker-isolated projects). */
  worker: string[];
  /** Files of the unit and bridge projects. */
  node: string[];
  /** Files of the interop and browser projects (they share one service, which serves the built console). */
  service: string[];
}

const toPosix = (p: string) => p.split(path.sep).join("/");

function files(root: string, include: readonly string[], exclude: readonly string[] = []): string[] {
  const excluded = new Set(globSync([...exclude], { cwd: root }).map(toPosix));
  return globSync([...include], { cwd: root })
    .map(toPosix)
    .filter((f) => !excluded.has(f))
    .sort();
}

/** Whether `file` (relative to `root`) belongs to `target`. */
export function inTarget(root: string, file: string, target: string): boolean {
  const full = path.resolve(root, target);
  if (existsSync(full)) {
    const relative = toPosix(path.relative(root, full));
    return statSync(full).isDirectory() ? relative === "" || file.startsWith(`${relative}/`) : file === relative;
  }
  const segments = file.split("/");
  const name = (segments.pop() ?? "").replace(/\.test\.ts$/, "");
  return segments.includes(target) || name === target || name.startsWith(`${target}-`);
}

/** Every lane's test files in any of `targets` (paths relative to `root`). */
export function selectTests(root: string, targets: string[]): Selection {
  const pick = (list: string[]) => list.filter((f) => targets.some((t) => inTarget(root, f, t)));
  return {
    worker: pick(files(root, WORKER_INCLUDE, WORKER_EXCLUDE)),
    node: pick([...files(root, NODE_INCLUDE.unit), ...files(root, NODE_INCLUDE.bridge)]),
    service: pick([...files(root, NODE_INCLUDE.interop), ...files(root, NODE_INCLUDE.browser)]),
  };
}
