// Regular expressions an organization wrote (a JSONata regex, FHIRPath's matches()) run inside
// the Worker, where one backtracking match cannot be interrupted: /(a+)+$/ on forty "a"s and a "b"
// holds the thread for minutes. scslre (the analyser behind eslint-plugin-regexp's
// no-super-linear-backtracking) finds the quantifiers that backtrack super-linearly; such a
// pattern is refused before it runs. Its "Move" reports (an unanchored pattern retried at every
// position, quadratic at worst) are common in ordinary patterns and are allowed.
import { analyse } from "scslre";

const verdicts = new Map<string, string | undefined>();
const MAX_CACHED = 1000;

/** Why `source` (with `flags`) may backtrack super-linearly, or undefined when it does not. */
export function superLinearRegex(source: string, flags = ""): string | undefined {
  const key = `${flags}/${source}`;
  if (verdicts.has(key)) return verdicts.get(key);
  let verdict: string | undefined;
  try {
    const reports = analyse({ source, flags: flags.replace(/[^dgimsuvy]/g, "") }, { maxReports: 1, reportTypes: { Move: false } }).reports;
    const report = reports[0];
    if (report) {
      const kind = report.exponential ? "exponential" : "polynomial";
      verdict = `the regular expression /${source}/ can take ${kind} time on a run of ${JSON.stringify(report.character.pick)} characters (nested or adjacent quantifiers over the same characters); rewrite it so each character can be matched one way only`;
    }
  } catch {
    // A pattern the analyser cannot parse is left to the engine, which reports its own syntax error.
  }
  if (verdicts.size >= MAX_CACHED) verdicts.delete(verdicts.keys().next().value as string);
  verdicts.set(key, verdict);
  return verdict;
}
