// Translates parsed search filters into SQL conditions over the index tables. Every subquery
// is pinned to the tenant through ?1 (org_id), which also leads every index it uses.
import { badRequest } from "../../../platform/errors";
import type { SearchParamDef } from "../definitions";
import { parseReference } from "../index-extract";
import { MAX_INSTANT, MIN_INSTANT, dateRange, foldString, numberRange } from "../values";
import type { Filter } from "./parse";
import { lookupTable } from "../../../platform/object-keys";

/** D1 binds at most 100 parameters per statement. */
export const D1_MAX_PARAMS = 100;
/** Parameters bound one by one; the rest travel in one JSON array bound last (?100). */
const DIRECT = D1_MAX_PARAMS - 1;

/** The greatest number of candidate rows one bounded set (see Args.bounded) may hold. */
export const MAX_CANDIDATES = 10_000;

/**
 * Collects a statement's bound arguments (?1 is always the organization) and its bounded sets.
 * Any number of values fits D1's 100 parameters: past the 98th, a value is read from one JSON
 * array bound as ?100 (json_extract of a parameter is a constant the planner can seek with).
 */
export class Args {
  private readonly direct: unknown[];
  private readonly spilled: unknown[] = [];
  /** Id sets read with a LIMIT (see bounded), checked by checkSql. */
  readonly sets: string[] = [];
  /** `bounding` false: sets are read whole (conditional matches must never miss one). */
  constructor(
    orgId: string,
    readonly bounding = true,
  ) {
    this.direct = [orgId];
  }
  add(v: unknown): string {
    if (this.direct.length < DIRECT) {
      this.direct.push(v);
      return `?${this.direct.length}`;
    }
    this.spilled.push(v);
    return `json_extract(?${D1_MAX_PARAMS}, '$[${this.spilled.length - 1}]')`;
  }
  /** The values to bind, in placeholder order. */
  get values(): unknown[] {
    if (!this.spilled.length) return [...this.direct];
    const pad = Array.from({ length: DIRECT - this.direct.length }, () => null);
    return [...this.direct, ...pad, JSON.stringify(this.spilled)];
  }
  /**
   * The ids of `c` as a set cut at MAX_CANDIDATES + 1 rows, so whatever reads it reads a bounded
   * number of index rows; a condition that reads more rows than it matches (`window`) is cut on
   * the rows it reads. checkSql tells whether a cut lost any.
   */
  bounded(c: IdCondition): string {
    if (!this.bounding) return c.sql;
    const cut = ` LIMIT ${MAX_CANDIDATES + 1}`;
    if (!c.window) {
      this.sets.push(c.sql.replace(/^SELECT \S+ FROM/, "SELECT 1 FROM"));
      return `${c.sql}${cut}`;
    }
    const { lead, pred, columns = "*" } = c.window;
    this.sets.push(`SELECT 1 ${lead}`);
    return `SELECT w.${c.idColumn} FROM (SELECT ${columns} ${lead}${cut}) w WHERE ${pred}`;
  }
  /**
   * A statement (taking these values) answering `over`: whether a bounded set holds more than
   * MAX_CANDIDATES rows (results read through it may be incomplete). Undefined: no sets.
   */
  checkSql(): string | undefined {
    if (!this.sets.length) return undefined;
    return this.answering(`(${joinTerms(this.sets.map(beyondCandidates), "OR")}) AS over`);
  }
  /** A statement (taking these values) answering `full`: whether `window` ("SELECT 1 FROM ...") holds more than MAX_CANDIDATES rows. */
  fullSql(window: string): string {
    return this.answering(`${beyondCandidates(window)} AS full`);
  }
  /** A one-row statement that takes every value bound to the query (naming the last placeholder does). */
  private answering(columns: string): string {
    const last = `?${this.values.length}`;
    return `SELECT ${columns} WHERE ${last} IS ${last}`;
  }
}

const beyondCandidates = (set: string) => `(SELECT COUNT(*) FROM (${set} LIMIT ${MAX_CANDIDATES + 1})) > ${MAX_CANDIDATES}`;

/** Terms joined flat; more nest in halves (D1 allows expression trees 100 deep, and a flat join of n terms is n deep). */
const FLAT = 16;

/** `parts` joined by `op` in an expression tree of logarithmic depth (SQLite flattens it again when planning). */
export function joinTerms(parts: string[], op: "AND" | "OR"): string {
  if (parts.length <= FLAT) return parts.join(` ${op} `);
  const half = Math.ceil(parts.length / 2);
  return `(${joinTerms(parts.slice(0, half), op)}) ${op} (${joinTerms(parts.slice(half), op)})`;
}

const TABLE = lookupTable<string>({
  string: "fhir_idx_string",
  token: "fhir_idx_token",
  reference: "fhir_idx_reference",
  date: "fhir_idx_date",
  number: "fhir_idx_number",
  quantity: "fhir_idx_number",
  uri: "fhir_idx_uri",
  composite: "fhir_idx_composite",
});

const PREFIXES = ["eq", "ne", "gt", "lt", "ge", "le", "sa", "eb", "ap"] as const;
type Prefix = (typeof PREFIXES)[number];

export function splitPrefix(value: string): { prefix: Prefix; rest: string } {
  const p = value.slice(0, 2) as Prefix;
  if (PREFIXES.includes(p) && /^[\d+-.]/.test(value.slice(2))) return { prefix: p, rest: value.slice(2) };
  return { prefix: "eq", rest: value };
}

/** Upper bound for a prefix range scan: every string starting with p sorts below p + U+FFFF. */
const prefixEnd = (p: string) => `${p}\uffff`;

/** A condition on one resource id expression: "<idExpr> IN (...)" or "NOT IN". */
export interface IdCondition {
  /** "SELECT <idColumn> FROM ... WHERE ..." (the WHERE clause is last, so more terms can be appended). */
  sql: string;
  idColumn: string;
  negate: boolean;
  /** Lower is more selective: the most selective filter drives the query, the others probe. */
  rank: number;
  /**
   * For a condition that reads more index rows than it matches (a substring, a `ne`, a column the
   * index does not lead with): the rows it reads ("FROM ... WHERE <index prefix>") and the test
   * on each (columns of `w`), so Args.bounded can cut it on reads.
   */
  window?: { lead: string; pred: string; columns?: string };
}

/**
 * The condition as a correlated probe for the row `r`. Index-table probes are pinned to the
 * owner index (org, type, resource, code): left alone, SQLite turns EXISTS into IN and
 * materializes every matching row of the value index (e.g. all dates after X) per query.
 */
export function probe(c: IdCondition, idExpr = "r.id"): string {
  const body = c.sql.replace(/^SELECT \S+ FROM (\w+)(?: INDEXED BY \w+)?/, (_m, table: string) =>
    c.idColumn === "resource_id" ? `SELECT 1 FROM ${table} INDEXED BY ${table}_owner_idx` : `SELECT 1 FROM ${table}`,
  );
  return `${c.negate ? "NOT " : ""}EXISTS (${body} AND ${c.idColumn} = ${idExpr})`;
}

/**
 * The value index a driving (non-correlated) subquery must use. Without statistics SQLite
 * prefers scanning the covering owner index over seeking the value index, which reads every
 * row of the type; dates pick the index of the column their comparison leads with.
 */
function valueIndex(table: string, datePrefix?: Prefix): string {
  if (table !== "fhir_idx_date") return `${table} INDEXED BY ${table}_value_idx`;
  const high = datePrefix === "gt" || datePrefix === "ge" || datePrefix === "eb";
  return `${table} INDEXED BY fhir_idx_date_${high ? "high" : "low"}_idx`;
}

const RANK = lookupTable<number>({ reference: 1, token: 2, string: 3, uri: 3, composite: 3, quantity: 4, number: 4, date: 4 });

/** Ids of resources of `typeExpr` (a bound type or a correlated column) that satisfy `filter`. */
export function condition(filter: Filter, typeExpr: string, args: Args): IdCondition {
  switch (filter.kind) {
    case "missing": {
      const sub = `SELECT resource_id FROM ${valueIndex(TABLE[filter.def.type]!)} WHERE org_id = ?1 AND resource_type = ${typeExpr} AND code = ${args.add(filter.def.code)}`;
      return { sql: sub, idColumn: "resource_id", negate: filter.missing, rank: 9 };
    }
    case "chain": {
      const branches = filter.inner.map(({ type, filter: inner }) => {
        const t = args.add(type);
        return `(target_type = ${t} AND target_id IN (${idsOf(inner, t, args)}))`;
      });
      return {
        sql: `SELECT resource_id FROM ${valueIndex("fhir_idx_reference")} WHERE org_id = ?1 AND resource_type = ${typeExpr} AND code = ${args.add(filter.def.code)} AND (${joinTerms(branches, "OR")})`,
        idColumn: "resource_id",
        negate: false,
        rank: 2,
      };
    }
    case "has": {
      const source = args.add(filter.sourceType);
      return {
        // Seeks the owner index once per id of the inner set.
        sql: `SELECT target_id FROM fhir_idx_reference INDEXED BY fhir_idx_reference_owner_idx WHERE org_id = ?1 AND resource_type = ${source} AND resource_id IN (${idsOf(filter.inner, source, args)}) AND code = ${args.add(filter.refCode)} AND target_type = ${typeExpr}`,
        idColumn: "target_id",
        negate: false,
        rank: 3,
      };
    }
    case "param":
      return paramCondition(filter.def, filter.modifier, filter.values, typeExpr, args);
  }
}

/**
 * The ids of `type` matching the filter, negations included (for chains and _has), as a bounded
 * set: a broad inner filter is refused (Args.checkSql) instead of materialized whole.
 */
function idsOf(filter: Filter, typeExpr: string, args: Args): string {
  const c = condition(filter, typeExpr, args);
  if (!c.negate) return args.bounded(c);
  // A negation reads the type's resources, probing each.
  const lead = `FROM fhir_resources WHERE org_id = ?1 AND resource_type = ${typeExpr} AND deleted = 0`;
  return args.bounded({ sql: `SELECT id ${lead}`, idColumn: "id", negate: false, rank: 9, window: { lead, pred: probe(c, "w.id"), columns: "id" } });
}

function paramCondition(def: SearchParamDef, modifier: string | undefined, values: string[], typeExpr: string, args: Args): IdCondition {
  if (def.code === "_id") {
    return { sql: `SELECT value FROM json_each(${args.add(JSON.stringify(values))}) WHERE 1`, idColumn: "value", negate: modifier === "not", rank: 0 };
  }
  if (def.code === "_lastUpdated") {
    const lead = `FROM fhir_resources WHERE org_id = ?1 AND resource_type = ${typeExpr} AND deleted = 0`;
    const pred = `(${joinTerms(values.map((v) => dateClause(v, "last_updated", "last_updated", args)), "OR")})`;
    return {
      sql: `SELECT id ${lead} AND ${pred}`,
      idColumn: "id",
      negate: false,
      rank: 8,
      ...(values.some((v) => readsBeyondMatches("date", undefined, v)) ? { window: { lead, pred, columns: "id, last_updated" } } : {}),
    };
  }
  let table = TABLE[def.type]!;
  let code = def.code;
  let negate = false;
  let clause: (v: string) => string;
  /** A composite's first components (tokens), which its value index seeks. */
  const firsts: string[] = [];
  switch (def.type) {
    case "string":
      clause = (v) => stringClause(v, modifier, args);
      break;
    case "token":
      if (modifier === "text") {
        table = TABLE.string!;
        code = `${def.code}:text`;
        clause = (v) => stringClause(v, undefined, args);
      } else if (modifier === "of-type") {
        code = `${def.code}:of-type`;
        clause = (v) => {
          const [system = "", typeCode = "", value = ""] = v.split("|");
          return `(system = ${args.add(system)} AND value = ${args.add(`${typeCode}|${value}`)})`;
        };
      } else {
        negate = modifier === "not";
        clause = (v) => tokenClause(v, args);
      }
      break;
    case "reference":
      if (modifier === "identifier") {
        table = TABLE.token!;
        code = `${def.code}:identifier`;
        clause = (v) => tokenClause(v, args);
      } else clause = (v) => referenceClause(v, modifier, def, args);
      break;
    case "date":
      clause = (v) => dateClause(v, "low", "high", args);
      break;
    case "number":
    case "quantity":
      clause = (v) => quantityClause(v, args);
      break;
    case "uri":
      clause = (v) => uriClause(v, modifier, args);
      break;
    case "composite":
      clause = (v) => {
        const { first, second } = compositeClause(v, def, args);
        firsts.push(first);
        return `(${first} AND ${second})`;
      };
      break;
    default:
      throw badRequest(`Search parameter ${def.code} cannot be searched`);
  }
  const ors = values.map(clause);
  const lead = `FROM ${valueIndex(table, def.type === "date" ? splitPrefix(values[0] ?? "").prefix : undefined)} WHERE org_id = ?1 AND resource_type = ${typeExpr} AND code = ${args.add(code)}`;
  const pred = `(${joinTerms(ors, "OR")})`;
  return {
    sql: `SELECT resource_id ${lead} AND ${pred}`,
    idColumn: "resource_id",
    negate,
    rank: modifier === "contains" || modifier === "text" || modifier === "above" ? 7 : (RANK[def.type] ?? 5),
    ...(values.some((v) => readsBeyondMatches(def.type, modifier, v)) ? { window: { lead, pred } } : {}),
    // A composite reads every row of its first components, then tests the second: cut on those.
    ...(firsts.length ? { window: { lead: `${lead} AND (${joinTerms(firsts, "OR")})`, pred } } : {}),
  };
}

/**
 * Whether a value's clause reads index rows it does not match: the value index cannot seek it
 * (a substring, `ne`, a token by system alone, a reference by URL alone) or seeks a far wider range
 * (date `ap`: every row starting before its end).
 */
function readsBeyondMatches(type: string, modifier: string | undefined, v: string): boolean {
  if (modifier === "contains" || modifier === "text" || modifier === "above") return true;
  switch (type) {
    case "date":
      return ["ne", "ap"].includes(splitPrefix(v).prefix);
    case "number":
    case "quantity":
      return splitPrefix(v).prefix === "ne";
    case "token":
      return modifier !== "of-type" && v.endsWith("|") && v.length > 1;
    case "reference":
      return modifier !== "identifier" && (v.includes(":") || (v.includes("/") && !parseReference(v)));
    default:
      return false;
  }
}

function stringClause(v: string, modifier: string | undefined, args: Args): string {
  // value_norm leads the value index; the exact value is its fold.
  if (modifier === "exact") return `(value_norm = ${args.add(foldString(v))} AND value = ${args.add(v)})`;
  const norm = foldString(v);
  // instr, not LIKE: D1 refuses LIKE/GLOB patterns over 50 bytes, and instr has no wildcards to escape.
  // A LIKE '%...%' could not use the index either; both read the code's rows (readsBeyondMatches).
  if (modifier === "contains") return `instr(value_norm, ${args.add(norm)}) > 0`;
  return `(value_norm >= ${args.add(norm)} AND value_norm < ${args.add(prefixEnd(norm))})`;
}

function tokenClause(v: string, args: Args): string {
  const bar = v.indexOf("|");
  if (bar < 0) return `value = ${args.add(v)}`;
  const system = v.slice(0, bar);
  const code = v.slice(bar + 1);
  if (code === "") return `system = ${args.add(system)}`;
  return `(value = ${args.add(code)} AND system = ${args.add(system)})`;
}

function referenceClause(v: string, modifier: string | undefined, def: SearchParamDef, args: Args): string {
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
function dateClause(v: string, low: string, high: string, args: Args): string {
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
function quantityClause(v: string, args: Args, column = "value", systemCol = "system", unitCol = "unit"): string {
  const [num = "", system, unit] = v.split("|");
  const parts = [numberClause(num, column, args)];
  if (system) parts.push(`${systemCol} = ${args.add(system)}`);
  if (unit) parts.push(`${unitCol} = ${args.add(unit)}`);
  return `(${parts.join(" AND ")})`;
}

function uriClause(v: string, modifier: string | undefined, args: Args): string {
  if (modifier === "below") return `(value >= ${args.add(v)} AND value < ${args.add(prefixEnd(v))})`;
  if (modifier === "above") {
    const a = args.add(v);
    return `substr(${a}, 1, length(value)) = value`;
  }
  return `value = ${args.add(v)}`;
}

/** Composite: "<token>$<second>", the second component by its own kind. */
function compositeClause(v: string, def: SearchParamDef, args: Args): { first: string; second: string } {
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
