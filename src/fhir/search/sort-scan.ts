// The sort-ordered plan, for searches sorted first by a date parameter they also filter on (e.g.
// Observation?code=X&date=ge..&date=lt..&_sort=-date). The general plan enumerates every match of
// the most selective filter and sorts them: thousands of rows for a common code. This one walks
// the date index in the page's order, checks each candidate, and stops at LIMIT, so its cost
// follows the page size; it loses when matches are rare, hence the choice in execute.ts.
import { type Args, condition, dateRowClause, dateSortBound, probe } from "./conditions";
import type { Cursor } from "./cursor";
import type { Filter, SearchRequest, SortKey } from "./parse";
import { keysetCondition, sortExpression } from "./sort";

export interface SortScan {
  key: SortKey;
  /** Filters on the sort parameter: they guarantee every match has a value in the index. */
  same: Filter[];
  others: Filter[];
}

/** The sort-ordered plan's shape when it can answer `req`, else undefined. */
export function sortScanFor(req: SearchRequest): SortScan | undefined {
  const key = req.sort[0];
  if (req.types.length !== 1 || key?.def.type !== "date" || key.def.code === "_lastUpdated") return undefined;
  const same = req.filters.filter((f) => (f.kind === "param" || f.kind === "missing") && f.def.code === key.def.code);
  // A resource without a value sorts as '' and is absent from the index: only a filter requiring
  // a value makes the index hold every match.
  if (!same.some((f) => f.kind === "param" || (f.kind === "missing" && !f.missing))) return undefined;
  if (same.some((f) => f.kind === "missing" && f.missing)) return undefined;
  return { key, same, others: req.filters.filter((f) => !same.includes(f)) };
}

/**
 * The page query. `d` walks the low (ascending) or high (descending) index, whose order is the
 * search's (sort value, then id). A resource's sort value is MIN(low) or MAX(high) over its rows,
 * so a row stands for its resource only when it holds that value (always, for a single row).
 * A single row answers the sort parameter's filters by itself; other rows probe the owner index.
 * Every other filter probes by d.resource_id, before the resource row is read.
 */
export function sortScanPage(scan: SortScan, req: SearchRequest, cursor: Cursor | undefined, args: Args): string {
  const { key } = scan;
  const type = args.add(req.types[0]);
  const col = key.desc ? "high" : "low";
  const backwards = cursor?.dir === "p";
  const where = ["d.org_id = ?1", `d.resource_type = ${type}`, `d.code = ${args.add(key.def.code)}`];
  for (const f of scan.same) {
    if (f.kind !== "param") continue;
    const bound = dateSortBound(f.values, key.desc);
    if (bound) where.push(`d.${col} ${key.desc ? ">=" : "<="} ${args.add(bound)}`);
  }
  const holder = key.desc ? "y.high > d.high OR (y.high = d.high AND y.rowid < d.rowid)" : "y.low < d.low OR (y.low = d.low AND y.rowid < d.rowid)";
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

  const rest = req.sort.slice(1).map((k) => sortExpression(k, args));
  const exprs = [`d.${col}`, ...rest];
  const desc = req.sort.map((k) => k.desc);
  if (cursor) {
    // The first key's bound lets the index seek to the cursor instead of filtering up to it.
    const after = key.desc !== backwards;
    where.push(`d.${col} ${after ? "<=" : ">="} ${args.add(cursor.keys[0])}`);
    where.push(keysetCondition(exprs, desc, cursor.keys, cursor.id, backwards, args, "d.resource_id"));
  }
  const dir = (descending: boolean) => (descending !== backwards ? "DESC" : "ASC");
  const select = ["r.resource_type", "r.id", "r.content", ...exprs.map((e, i) => `${e} AS s${i}`)];
  const order = [`d.${col} ${dir(key.desc)}`, ...rest.map((_, i) => `s${i + 1} ${dir(desc[i + 1]!)}`), `d.resource_id ${backwards ? "DESC" : "ASC"}`];
  return `SELECT ${select.join(", ")} FROM fhir_idx_date d INDEXED BY fhir_idx_date_${col}_idx CROSS JOIN fhir_resources r WHERE ${where.join(" AND ")} ORDER BY ${order.join(", ")} LIMIT ${args.add(req.count + 1)}`;
}
