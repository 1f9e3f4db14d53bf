// The regular expressions in the service's source, checked for super-linear backtracking by
// scslre (src/platform/regex-safety.ts): every regex literal and every `new RegExp("…")` with a
// literal pattern. test/unit/regex-audit.test.ts fails on any finding.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { superLinearRegex } from "../../src/platform/regex-safety";

export interface RegexFinding {
  file: string;
  line: number;
  regex: string;
  problem: string;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield full;
  }
}

/** The findings in every .ts file under `dirs` (paths relative to `root`). */
export function auditRegexes(root: string, dirs: string[]): { checked: number; findings: RegexFinding[] } {
  const findings: RegexFinding[] = [];
  let checked = 0;
  for (const dir of dirs) {
    for (const file of sourceFiles(path.join(root, dir))) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const check = (node: ts.Node, pattern: string, flags: string, shown: string) => {
        checked++;
        const problem = superLinearRegex(pattern, flags);
        if (problem) findings.push({ file: path.relative(root, file), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, regex: shown, problem });
      };
      const visit = (node: ts.Node) => {
        if (ts.isRegularExpressionLiteral(node)) {
          const text = node.text;
          const end = text.lastIndexOf("/");
          check(node, text.slice(1, end), text.slice(end + 1), text);
        } else if (ts.isNewExpression(node) && node.expression.getText(source) === "RegExp" && node.arguments?.[0] && ts.isStringLiteralLike(node.arguments[0])) {
          const flags = node.arguments[1] && ts.isStringLiteralLike(node.arguments[1]) ? node.arguments[1].text : "";
          check(node, node.arguments[0].text, flags, `new RegExp(${node.arguments[0].getText(source)})`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return { checked, findings };
}
