// The sort-ordered plan, for searches sorted first by a date parameter (e.g. Observation?code=X&
// date=ge..&date=lt..&_sort=-date). The general plan enumerates every match of the most selective
// filter and sorts them: thousands of rows for a common code. This one walks the date index in
// the page's order, checks each candidate, and stops at LIMIT, so its cost follows the page size;
// it loses when matches are rare, hence the choice in page.ts.
import { MAX_INSTANT, MIN_INSTANT } from "../values";
import { type Args, MAX_CANDIDATES } from "./args";
import { condition } from "./conditions";
import { joinTerms, probe } from "./sql";
import { dateRowClause, dateSortBound } from "./value-clauses";
import type { Cursor } from "./cursor";
import type { Filter, SearchRequest, SortKey } from "./parse";
import { keysetCondition } from "./sort";

export interface SortScan {
  key: SortKey;
  /** Filters on the sort parameter. */
  same: Filter[];
  others: Filter[];
  /**
   * Whether every match has a value of the sort parameter (a filter on it requires one). If not,
   * matches without one sort as '' and are not in the index: page.ts lists them separately.
   */
  complete: boolean;
}

/** The sort-ordered plan's shape when it can answer `req`, else undefined. */
export function sortScanFor(req: SearchRequest): SortScan | undefined {
  const key = req.sort[0];
  // One sort key: the walk reads a bounded window in the page's order, which a second key would reorder.
  if (req.types.length !== 1 || req.sort.length !== 1 || key?.def.type !== "date" || key.def.code === "_lastUpdated") return undefined;
  const same = req.filters.filter((f) => (f.kind === "param" || f.kind === "missing") && f.def.code === key.def.code);
  // Only resources without a value match: nothing to walk.
  if (same.some((f) => f.kind === "missing" && f.missing)) return undefined;
  const complete = same.some((f) => f.kind === "param" || f.kind === "missing");
  return { key, same, others: req.filters.filter((f) => !same.includes(f)), complete };
}

/** The condition of the wide-row partial indexes (src/db/schema/fhir.ts), which a query must repeat to use them. */
const WIDE_DATE_ROW = "(single = 0 OR IFNULL(julianday(high) - julianday(low), 2) > 1)";
const DAY_AND_A_MS = 86_400_001;

/**
 * A bound on the walk's far end (where it starts). A filter on the opposite side of the walk
 * (date=lt.. under _sort=-date, date=ge.. under _sort=date) bounds the matching row's low (high),
 * which says nothing in general about the sort value, the row's high (low): a period can run for
 * years. But a single value at most a day wide lies within a day of it; so unless a wide row lies
 * past that point (one seek on a partial index of wide rows only, evaluated once), the walk skips
 * everything beyond it instead of reading it to reject it.
 */
function farBound(values: string[], desc: boolean, type: string, code: string, args: Args): string | undefined {
  const near = dateSortBound(values, !desc);
  const at = near === undefined ? Number.NaN : Date.parse(near) + (desc ? DAY_AND_A_MS : -DAY_AND_A_MS);
  if (!(at >= Date.parse(MIN_INSTANT) && at <= Date.parse(MAX_INSTANT))) return undefined;
  const cut = args.add(new Date(at).toISOString());
  const [col, past, open] = desc ? ["high", ">=", "'~'"] : ["low", "<=", "''"];
  const wide = `EXISTS (SELECT 1 FROM fhir_idx_date INDEXED BY fhir_idx_date_wide_${col}_idx WHERE org_id = ?1 AND resource_type = ${type} AND code = ${code} AND ${WIDE_DATE_ROW} AND ${col} ${past} ${cut})`;
  // '~' sorts after and '' before every instant: no bound.
  return `d.${col} ${desc ? "<" : ">"} CASE WHEN ${wide} THEN ${open} ELSE ${cut} END`;
}

/**
 * The page query. `d` walks the low (ascending) or high (descending) index, whose order is the
 * search's (sort value, then id). A resource's sort value is MIN(low) or MAX(high) over its rows,
 * so a row stands for its resource only when it holds that value (always, for a single row).
 * A single row answers the sort parameter's filters by itself; other rows probe the owner index.
 * Every other filter probes by d.resource_id, before the resource row is read.
 */
export function sortScanPage(scan: SortScan, req: SearchRequest, cursor: Cursor | undefined, backwards: boolean, limit: number, args: Args): { sql: string; window: string } {
  const { key } = scan;
  const type = args.add(req.types[0]);
  const col = key.desc ? "high" : "low";
  const code = args.add(key.def.code);
  // `range`: what the index answers (the window's rows); `where`: the tests on each of them.
  const range = ["d.org_id = ?1", `d.resource_type = ${type}`, `d.code = ${code}`];
  for (const f of scan.same) {
    if (f.kind !== "param") continue;
    const bound = dateSortBound(f.values, key.desc);
    if (bound) range.push(`d.${col} ${key.desc ? ">=" : "<="} ${args.add(bound)}`);
    const far = farBound(f.values, key.desc, type, code, args);
    if (far) range.push(far);
  }
  const where: string[] = [];
  const holder = key.desc ? "y.high > d.high OR (y.high = d.high AND y.rowid < d.rid)" : "y.low < d.low OR (y.low = d.low AND y.rowid < d.rid)";
  where.push(
    `(d.single = 1 OR NOT EXISTS (SELECT 1 FROM fhir_idx_date y INDEXED BY fhir_idx_date_owner_idx WHERE y.org_id = ?1 AND y.resource_type = d.resource_type AND y.resource_id = d.resource_id AND y.code = d.code AND (${holder})))`,
  );
  for (const f of scan.same) {
    if (f.kind !== "param") continue;
    const rowTest = dateRowClause(f.values, "d.low", "d.high", args);
    where.push(`CASE WHEN d.single = 1 THEN ${rowTest} ELSE ${probe(condition(f, type, args), "d.resource_id")} END`);
  }
  for (const f of scan.others) where.push(probe(condition(f, type, args), "d.resource_id"));
  where.push("r.org_id = ?1", "r.resource_type = d.resource_type", "r.id = d.resource_id", "r.deleted = 0");

  const exprs = [`d.${col}`];
  if (cursor) {
    // The first key's bound lets the index seek to the cursor instead of filtering up to it.
    const after = key.desc !== backwards;
    range.push(`d.${col} ${after ? "<=" : ">="} ${args.add(cursor.keys[0])}`);
    range.push(keysetCondition(exprs, [key.desc], cursor.keys, cursor.id, backwards, args, "d.resource_id"));
  }
  const dir = (descending: boolean) => (descending !== backwards ? "DESC" : "ASC");
  const select = ["r.resource_type", "r.id", "r.content", `d.${col} AS s0`];
  const order = `d.${col} ${dir(key.desc)}, d.resource_id ${backwards ? "DESC" : "ASC"}`;
  // The window: at most MAX_CANDIDATES + 1 index rows from the cursor, in the page's order.
  const from = `fhir_idx_date d INDEXED BY fhir_idx_date_${col}_idx WHERE ${joinTerms(range, "AND")}`;
  const window = `(SELECT d.*, d.rowid AS rid FROM ${from} ORDER BY ${order} LIMIT ${MAX_CANDIDATES + 1}) d`;
  return {
    sql: `SELECT ${select.join(", ")} FROM ${window} CROSS JOIN fhir_resources r WHERE ${joinTerms(where, "AND")} ORDER BY ${order} LIMIT ${args.add(limit)}`,
    window: `SELECT 1 FROM ${from}`,
  };
}
