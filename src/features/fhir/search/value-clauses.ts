// The SQL clause of one search value on an index row's columns, per parameter type (string,
// token, reference, date, number and quantity, uri, composite), with FHIR's prefixes and modifiers;
// and the bounds a date filter gives its resources' sort value (the sort-ordered plan).
import { badRequest } from "../../../platform/errors";
import type { SearchParamDef } from "../definitions";
import { parseReference } from "../index-extract";
import { MAX_INSTANT, MIN_INSTANT, dateRange, foldString, numberRange } from "../values";
import type { Args } from "./args";
import { joinTerms } from "./sql";

const PREFIXES = ["eq", "ne", "gt", "lt", "ge", "le", "sa", "eb", "ap"] as const;
export type Prefix = (typeof PREFIXES)[number];

export function splitPrefix(value: string): { prefix: Prefix; rest: string } {
  const p = value.slice(0, 2) as Prefix;
  if (PREFIXES.includes(p) && /^[\d+-.]/.test(value.slice(2))) return { prefix: p, rest: value.slice(2) };
  return { prefix: "eq", rest: value };
}

/** Upper bound for a prefix range scan: every string starting with p sorts below p + U+FFFF. */
const prefixEnd = (p: string) => `${p}\uffff`;

export function stringClause(v: string, modifier: string | undefined, args: Args): string {
  // value_norm leads the value index; the exact value is its fold.
  if (modifier === "exact") return `(value_norm = ${args.add(foldString(v))} AND value = ${args.add(v)})`;
  const norm = foldString(v);
  // instr, not LIKE: D1 refuses LIKE/GLOB patterns over 50 bytes, and instr has no wildcards to escape.
  // A LIKE '%...%' could not use the index either; both read the code's rows (readsBeyondMatches).
  if (modifier === "contains") return `instr(value_norm, ${args.add(norm)}) > 0`;
  return `(value_norm >= ${args.add(norm)} AND value_norm < ${args.add(prefixEnd(norm))})`;
}

export function tokenClause(v: string, args: Args): string {
  const bar = v.indexOf("|");
  if (bar < 0) return `value = ${args.add(v)}`;
  const system = v.slice(0, bar);
  const code = v.slice(bar + 1);
  if (code === "") return `system = ${args.add(system)}`;
  return `(value = ${args.add(code)} AND system = ${args.add(system)})`;
}

export function referenceClause(v: string, modifier: string | undefined, def: SearchParamDef, args: Args): string {
  const parsed = v.includes("/") ? parseReference(v) : undefined;
  if (parsed) {
    const typeId = `(target_id = ${args.add(parsed.id)} AND target_type = ${args.add(parsed.type)})`;
    return /^https?:/.test(v) ? `(${typeId} OR url = ${args.add(v)})` : typeId;
  }
  if (v.includes("/") || v.includes(":")) return `url = ${args.add(v)}`;
  // A bare id: of the modifier's type, or of the parameter's only target type, or any.
  const type = modifier ?? (def.targets?.length === 1 ? def.targets[0] : undefined);
  return type ? `(target_id = ${args.add(v)} AND target_type = ${args.add(type)})` : `target_id = ${args.add(v)}`;
}

/**
 * FHIR date comparison between the stored range [low, high] and the search value's range
 * [sl, sh] (both at their precision), per the R4 search page's prefix table.
 */
export function dateClause(v: string, low: string, high: string, args: Args): string {
  const { prefix, rest } = splitPrefix(v);
  const range = dateRange(rest);
  if (!range) throw badRequest(`Invalid date ${v}`);
  const sl = args.add(range.low);
  const sh = args.add(range.high);
  // Each form leads with a bound on one indexed column (low or high); since low <= high for
  // every stored range, the lead bound is implied by the FHIR definition that follows it.
  const eq = `(${low} >= ${sl} AND ${low} <= ${sh} AND ${high} <= ${sh})`;
  switch (prefix) {
    case "eq":
      return eq;
    case "ne":
      return `NOT ${eq}`;
    case "gt":
      return `${high} > ${sh}`;
    case "lt":
      return `${low} < ${sl}`;
    case "ge":
      return `(${high} >= ${sl} AND (${high} > ${sh} OR ${low} >= ${sl}))`;
    case "le":
      return `(${low} <= ${sh} AND (${low} < ${sl} OR ${high} <= ${sh}))`;
    case "sa":
      return `${low} > ${sh}`;
    case "eb":
      return `${high} < ${sl}`;
    case "ap": {
      // Within 10% of the distance between the value and now, at least a day either side.
      const t = Date.parse(range.low);
      const slack = Math.max(86_400_000, Math.abs(Date.now() - t) * 0.1);
      const lo = new Date(Math.max(Date.parse(MIN_INSTANT), t - slack)).toISOString();
      const hi = new Date(Math.min(Date.parse(MAX_INSTANT), Date.parse(range.high) + slack)).toISOString();
      return `(${low} <= ${args.add(hi)} AND ${high} >= ${args.add(lo)})`;
    }
  }
}

/** A date filter's values (ORed) tested on one index row's columns, as the filter tests each row. */
export function dateRowClause(values: string[], low: string, high: string, args: Args): string {
  return `(${joinTerms(values.map((v) => dateClause(v, low, high, args)), "OR")})`;
}

/**
 * A bound that the index row satisfying the date filter has, hence its resource's sort value:
 * `high` true, a lower bound on the row's high, so on MAX(high), the descending sort value (ge,
 * gt, eq, sa); false, an upper bound on its low, so on MIN(low), the ascending one (lt, le, eq,
 * eb). Undefined when some value gives none.
 */
export function dateSortBound(values: string[], high: boolean): string | undefined {
  let bound: string | undefined;
  for (const v of values) {
    const { prefix, rest } = splitPrefix(v);
    const range = dateRange(rest);
    if (!range) return undefined;
    const b = high
      ? prefix === "ge" || prefix === "eq"
        ? range.low
        : prefix === "gt" || prefix === "sa"
          ? range.high
          : undefined
      : prefix === "le" || prefix === "eq"
        ? range.high
        : prefix === "lt" || prefix === "eb"
          ? range.low
          : undefined;
    if (b === undefined) return undefined;
    // ORed values: the loosest bound holds for all of them.
    if (bound === undefined || (high ? b < bound : b > bound)) bound = b;
  }
  return bound;
}

function numberClause(v: string, column: string, args: Args): string {
  const { prefix, rest } = splitPrefix(v);
  const n = numberRange(rest);
  if (!n) throw badRequest(`Invalid number ${v}`);
  switch (prefix) {
    case "eq":
      return `(${column} >= ${args.add(n.low)} AND ${column} < ${args.add(n.high)})`;
    case "ne":
      return `NOT (${column} >= ${args.add(n.low)} AND ${column} < ${args.add(n.high)})`;
    case "gt":
    case "sa":
      return `${column} > ${args.add(n.value)}`;
    case "lt":
    case "eb":
      return `${column} < ${args.add(n.value)}`;
    case "ge":
      return `${column} >= ${args.add(n.value)}`;
    case "le":
      return `${column} <= ${args.add(n.value)}`;
    case "ap": {
      const slack = Math.abs(n.value) * 0.1;
      return `(${column} >= ${args.add(n.value - slack)} AND ${column} <= ${args.add(n.value + slack)})`;
    }
  }
}

/** number, or quantity as value|system|code (system and code optional). */
export function quantityClause(v: string, args: Args, column = "value", systemCol = "system", unitCol = "unit"): string {
  const [num = "", system, unit] = v.split("|");
  const parts = [numberClause(num, column, args)];
  if (system) parts.push(`${systemCol} = ${args.add(system)}`);
  if (unit) parts.push(`${unitCol} = ${args.add(unit)}`);
  return `(${parts.join(" AND ")})`;
}

export function uriClause(v: string, modifier: string | undefined, args: Args): string {
  if (modifier === "below") return `(value >= ${args.add(v)} AND value < ${args.add(prefixEnd(v))})`;
  if (modifier === "above") {
    const a = args.add(v);
    return `substr(${a}, 1, length(value)) = value`;
  }
  return `value = ${args.add(v)}`;
}

/** Composite: "<token>$<second>", the second component by its own kind. */
export function compositeClause(v: string, def: SearchParamDef, args: Args): { first: string; second: string } {
  const [first, second] = v.split("$");
  const kind = def.components?.[1]?.type;
  if (!first || second === undefined || !kind) throw badRequest(`Composite ${def.code} takes a value like code$value, got ${v}`);
  const bar = first.indexOf("|");
  const c1 = bar < 0 ? `value1 = ${args.add(first)}` : `(value1 = ${args.add(first.slice(bar + 1))} AND system1 = ${args.add(first.slice(0, bar))})`;
  let c2: string;
  switch (kind) {
    case "quantity":
    case "number":
      c2 = quantityClause(second, args, "num", "system2", "value2");
      break;
    case "date":
      c2 = dateClause(second, "low", "high", args);
      break;
    case "string":
      c2 = `(value2 >= ${args.add(foldString(second))} AND value2 < ${args.add(prefixEnd(foldString(second)))})`;
      break;
    default: {
      const b = second.indexOf("|");
      c2 = b < 0 ? `value2 = ${args.add(second)}` : `(value2 = ${args.add(second.slice(b + 1))} AND system2 = ${args.add(second.slice(0, b))})`;
    }
  }
  return { first: c1, second: c2 };
}
