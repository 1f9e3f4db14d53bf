// X12 values as FHIR values: dates, periods, money, names, addresses.
import { comp, el, isCalendarDate, type Segment } from "../model";

/** CCYYMMDD → YYYY-MM-DD; undefined when it is not a date. */
export function date(v: string | undefined): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(v ?? "");
  // A day that does not exist (the reader reports BAD_DATE) is no date rather than an invalid FHIR one.
  return m && isCalendarDate(`${m[1]}${m[2]}${m[3]}`) ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/** A DTP/DTM value by its format qualifier: D8 a day, RD8 a range, DT a day and time. */
export function period(format: string, v: string): { start?: string; end?: string } | undefined {
  if (format === "RD8") {
    const [a, b] = v.split("-");
    const start = date(a);
    const end = date(b);
    return start || end ? { start, end } : undefined;
  }
  const d = date(v);
  return d ? { start: d, end: d } : undefined;
}

/**
 * A term from DTP segments: a date or range under one of `whole` (291 plan), and begin and
 * end dates under their own qualifiers (346 plan begin, 347 plan end), each D8 or RD8. A
 * begin without an end is an open period, never a one-day one.
 */
export function term(dtps: Segment[], q: { whole: readonly string[]; begin: string; end: string }): { start?: string; end?: string } | undefined {
  let start: string | undefined;
  let end: string | undefined;
  for (const s of dtps) {
    const [a, b] = el(s, 2) === "RD8" ? el(s, 3).split("-") : [el(s, 3), undefined];
    const from = date(a);
    const to = b === undefined ? undefined : date(b);
    if (q.whole.includes(el(s, 1)) || el(s, 1) === q.begin) {
      start ??= from;
      end ??= to;
    } else if (el(s, 1) === q.end) end = to ?? from;
  }
  return start || end ? clean({ start, end }) : undefined;
}

/** The date of a DTP segment (start of a range). */
export const dtpDate = (s: Segment | undefined) => (s ? period(el(s, 2), el(s, 3))?.start : undefined);
/** The period of a DTP segment. */
export const dtpPeriod = (s: Segment | undefined) => (s ? period(el(s, 2), el(s, 3)) : undefined);

/** YYYY-MM-DD... → CCYYMMDD. */
export const x12Date = (d: string | undefined) => (d ? d.slice(0, 10).replaceAll("-", "") : undefined);

/** A decimal amount; undefined when not a number. */
export function amount(v: string | undefined): number | undefined {
  if (!v || !/^-?(?:\d+(?:\.\d+)?|\.\d+)$/.test(v)) return undefined;
  return Number(v);
}

export const money = (v: string | undefined) => {
  const value = amount(v);
  return value === undefined ? undefined : { value, currency: "USD" };
};

/** An amount as X12 writes it: no trailing zeros, no leading "+". */
export const x12Amount = (n: number | undefined) => (n === undefined ? undefined : String(Number(n.toFixed(2))));

/** NM1 name of a person (NM103 last, NM104 first, NM105 middle, NM106 prefix, NM107 suffix). */
export function personName(nm1: Segment): Record<string, unknown> {
  const given = [el(nm1, 4), el(nm1, 5)].filter(Boolean);
  return clean({ family: el(nm1, 3) || undefined, given: given.length ? given : undefined, prefix: el(nm1, 6) ? [el(nm1, 6)] : undefined, suffix: el(nm1, 7) ? [el(nm1, 7)] : undefined });
}

/** N3/N4 as an Address. */
export function address(n3: Segment | undefined, n4: Segment | undefined): Record<string, unknown> | undefined {
  if (!n3 && !n4) return undefined;
  const line = [el(n3, 1), el(n3, 2)].filter(Boolean);
  return clean({ line: line.length ? line : undefined, city: el(n4, 1) || undefined, state: el(n4, 2) || undefined, postalCode: el(n4, 3) || undefined, country: el(n4, 4) || undefined });
}

/** Component c of element n, undefined when empty. */
export const part = (s: Segment | undefined, n: number, c: number) => comp(s, n, c) || undefined;
/** Element n, undefined when empty. */
export const val = (s: Segment | undefined, n: number) => el(s, n) || undefined;

/** The object without its undefined members and empty arrays (FHIR has neither). */
export function clean<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v === undefined || (Array.isArray(v) && v.length === 0)) delete o[k];
  }
  return o;
}
