// Every regular expression in src/ and bridge/src/ is checked for super-linear backtracking
// (scripts/lib/regex-audit.ts, with scslre): a new one that backtracks polynomially or
// exponentially on a crafted value fails here, naming its file and line (issue #32: one such
// request can hold workerd's only thread).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { auditRegexes } from "../../scripts/lib/regex-audit";
import { superLinearRegex } from "../../src/platform/regex-safety";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("regex audit", () => {
  it("the checker flags nested and adjacent quantifiers over the same characters, and passes linear patterns", () => {
    expect(superLinearRegex("^(a+)+$")).toMatch(/exponential/);
    expect(superLinearRegex("^-?\\d*\\.?\\d+$")).toMatch(/polynomial/);
    expect(superLinearRegex("^-?(?:\\d+(?:\\.\\d+)?|\\.\\d+)$")).toBeUndefined();
    expect(superLinearRegex("^\\d{4}-\\d{2}-\\d{2}$")).toBeUndefined();
  });

  it("no regular expression in the service's source backtracks super-linearly", () => {
    const { checked, findings } = auditRegexes(ROOT, ["src", "bridge/src"]);
    expect(checked).toBeGreaterThan(300);
    expect(findings.map((f) => `${f.file}:${f.line} ${f.regex}: ${f.problem}`)).toEqual([]);
  });
});
