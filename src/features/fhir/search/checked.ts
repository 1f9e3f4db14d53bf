// A search statement with the one-row statements that tell whether its bounded reads were cut:
// what every plan (page.ts, walk.ts, sort-scan.ts) builds and page.ts runs.

/** One statement and its checks (one-row statements with the same values, see Args.checkSql and fullSql). */
export interface Checked {
  sql: string;
  args: unknown[];
  /** Answers `over`: a bounded set the statement reads was cut. */
  check?: string;
  /** Answers `full`: the window the statement reads holds more rows than it may read. */
  full?: string;
}
