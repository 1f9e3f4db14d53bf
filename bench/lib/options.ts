// Command-line options of the benchmarks (`--name value`), read one way everywhere: a
// missing option takes its default, a malformed one stops the run (never a NaN figure).

/** The value after `--name`, or undefined when the option is absent. */
export function option(name: string, argv: readonly string[] = process.argv): string | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value`);
  return value;
}

/** A positive number option (`--seconds 2`), `fallback` when absent; `integer`: a count; `zero`: 0 allowed (a step skipped). */
export function numberOption(name: string, fallback: number, opts: { integer?: boolean; zero?: boolean; argv?: readonly string[] } = {}): number {
  const raw = option(name, opts.argv);
  const value = raw === undefined ? fallback : Number(raw);
  const kind = `a ${opts.zero ? "non-negative" : "positive"} ${opts.integer ? "integer" : "number"}`;
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !opts.zero) || (opts.integer && !Number.isInteger(value))) throw new Error(`--${name} must be ${kind}, not ${raw ?? fallback}`);
  return value;
}
