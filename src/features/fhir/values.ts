// Value normalization shared by indexing and searching: accent/case folding for strings,
// date precision ranges as UTC instants, and implicit precision ranges for numbers.

/** Lower-cases and strips diacritics so "Ãlvarez" is found by "alvarez". */
export function foldString(s: string): string {
  return s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

const DATE_RE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

export interface DateRange {
  low: string;
  high: string;
}

/**
 * The range of instants a FHIR date/dateTime/instant covers at its precision: "2020-03" is
 * [2020-03-01T00:00:00.000Z, 2020-03-31T23:59:59.999Z]. Values without a zone are read as UTC.
 * Returns undefined for anything that is not a FHIR date.
 */
export function dateRange(value: string): DateRange | undefined {
  const m = DATE_RE.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y);
  const month = mo ? Number(mo) - 1 : 0;
  const day = d ? Number(d) : 1;
  if (month > 11 || day > 31) return undefined;
  const offsetMs = zone && zone !== "Z" ? (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000 : 0;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, "0")) : 0;
  const start = Date.UTC(year, month, day, h ? Number(h) : 0, mi ? Number(mi) : 0, s ? Number(s) : 0, ms) - offsetMs;
  let end: number;
  if (!mo) end = Date.UTC(year + 1, 0, 1) - offsetMs;
  else if (!d) end = Date.UTC(year, month + 1, 1) - offsetMs;
  else if (!h) end = Date.UTC(year, month, day + 1) - offsetMs;
  else if (!s) end = start + 60_000;
  else if (!frac) end = start + 1000;
  else end = start + 1;
  if (Number.isNaN(start) || Number.isNaN(end)) return undefined;
  return { low: iso(start), high: iso(end - 1) };
}

const iso = (ms: number) => new Date(ms).toISOString();

export const MIN_INSTANT = "0000-01-01T00:00:00.000Z";
export const MAX_INSTANT = "9999-12-31T23:59:59.999Z";

/** A search number's implicit range: "100" means [99.5, 100.5), "1.50" means [1.495, 1.505). */
export function numberRange(text: string): { value: number; low: number; high: number } | undefined {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const value = Number(text);
  const [mantissa = "", exp] = text.toLowerCase().split("e");
  const decimals = (mantissa.split(".")[1] ?? "").length - Number(exp ?? 0);
  // Past ~15 significant digits the implicit range is below float resolution: widen it to a few ulps.
  const half = Math.max(0.5 * 10 ** -decimals, Math.abs(value) * 4 * Number.EPSILON);
  return { value, low: value - half, high: value + half };
}
