// Debian's python3-hl7 as an independent reader of the messages the encoder writes: every
// message is parsed by `hl7.parse` and returned as segments → fields → repetitions →
// components → subcomponents, each leaf unescaped by python-hl7 itself. The interpreter
// is `python3` when it can import hl7, else the one Debian's own `mllp_send` (same
// package) runs under. Not finding it is an error for the caller to fail on, never a skip.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const READER = `
import hl7, json, sys

def tree(m, x, depth):
    if isinstance(x, str):
        v = m.unescape(x)
        for _ in range(3 - depth):
            v = [v]
        return v
    return [tree(m, c, depth + 1) for c in x]

out = []
for text in json.load(sys.stdin):
    m = hl7.parse(text)
    segments = []
    for seg in m:
        name = str(seg[0])
        fields = []
        for i in range(1, len(seg)):
            if name == "MSH" and i in (1, 2):
                fields.append(str(seg[i]))
            else:
                fields.append(tree(m, seg[i], 0))
        segments.append([name, fields])
    out.append(segments)
json.dump(out, sys.stdout)
`;

/** A message as python-hl7 reads it: [segment name, fields (field n at index n - 1)]. */
export type PythonSegment = [string, unknown[]];

function canImport(python: string): boolean {
  try {
    execFileSync(python, ["-c", "import hl7"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The interpreter named on the first line of mllp_send, found on PATH. */
function mllpSendInterpreter(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const file = path.join(dir, "mllp_send");
    if (!fs.existsSync(file)) continue;
    const first = fs.readFileSync(file, "utf8").split("\n", 1)[0] ?? "";
    const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
    if (m) return m[1]!.endsWith("/env") && m[2] ? m[2] : m[1];
  }
  return undefined;
}

/** A python that imports Debian's hl7 package, or undefined. */
export function findPythonHl7(): string | undefined {
  return ["python3", mllpSendInterpreter()].find((p): p is string => !!p && canImport(p));
}

/** Parse messages with python-hl7 (one interpreter for all of them). */
export function readWithPythonHl7(python: string, messages: string[]): PythonSegment[][] {
  const out = execFileSync(python, ["-c", READER], { input: JSON.stringify(messages), maxBuffer: 256 * 1024 * 1024 });
  return JSON.parse(out.toString("utf8")) as PythonSegment[][];
}
