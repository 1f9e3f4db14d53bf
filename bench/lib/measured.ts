// Refuses figures that measured nothing. A benchmark that prints NaN, 0 req/s or a rate
// over failed requests and exits 0 reads like a result; every benchmark passes its figures
// through here before printing them, so such a run throws (non-zero exit) with a message
// naming the figure instead.

export class NothingMeasured extends Error {
  override name = "NothingMeasured";
}

export interface Figure {
  /** What was measured, for the message: "FHIR read req/s". */
  label: string;
  value: number;
  /** Requests or items that failed while measuring; any makes the figure meaningless. */
  errors?: number;
}

/** The figure's value, unless it is not a finite number above zero or the run had errors. */
export function measured(figure: Figure): number {
  const { label, value, errors = 0 } = figure;
  if (!Number.isFinite(value)) throw new NothingMeasured(`${label}: measured ${value}, not a number`);
  if (value <= 0) throw new NothingMeasured(`${label}: measured ${value}; nothing was done`);
  if (errors > 0) throw new NothingMeasured(`${label}: ${errors} errors while measuring`);
  return value;
}

/** Checks several figures at once; answers their values in the same order. */
export function allMeasured<const T extends readonly Figure[]>(figures: T): { -readonly [K in keyof T]: number } {
  return figures.map(measured) as { -readonly [K in keyof T]: number };
}

/** The sample, unless it is empty or holds a value that is not a finite number. */
export function sampled(label: string, sample: readonly number[]): readonly number[] {
  if (!sample.length) throw new NothingMeasured(`${label}: empty sample`);
  const bad = sample.find((x) => !Number.isFinite(x));
  if (bad !== undefined) throw new NothingMeasured(`${label}: sample holds ${bad}`);
  return sample;
}
