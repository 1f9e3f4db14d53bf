// The page query of a search: the general plan (the most selective filter drives, the rest probe,
// the matches are sorted) or the sort-ordered one (sort-scan.ts), whichever should be cheaper.
import { Args, type IdCondition, condition, probe } from "./conditions";
import type { Cursor } from "./cursor";
import type { Filter, SearchRequest } from "./parse";
import { keysetCondition, sortExpression } from "./sort";
import { type SortScan, sortScanFor, sortScanPage } from "./sort-scan";

/** One page query; `limit` is how many rows it may return. */
export type Segment = (limit: number) => { sql: string; args: unknown[] };

export interface PagePlan {
  /** Queries the page reads in order, each only while the page is short of rows. */
  segments: Segment[];
  plan?: "scan";
}

const D1_MAX_PARAMS = 100;

/** The most selective positive filter: it drives the general plan. */
const driverOf = (conds: IdCondition[]): IdCondition | undefined => conds.filter((c) => !c.negate).sort((a, b) => a.rank - b.rank)[0];

/** WHERE clause (with the tenant and type) shared by the page query and the count. */
export function whereClause(req: SearchRequest, args: Args): string {
  const where = ["r.org_id = ?1", "r.deleted = 0"];
  let typeExpr = "r.resource_type";
  if (req.types.length === 1) {
    typeExpr = args.add(req.types[0]);
    where.push(`r.resource_type = ${typeExpr}`);
  } else if (req.types.length > 1) {
    where.push(`r.resource_type IN (SELECT value FROM json_each(${args.add(JSON.stringify(req.types))}))`);
  }
  // The most selective positive filter drives the query (its ids are enumerated from an
  // index); every other filter is a correlated probe by owner id, so no large id set is ever
  // materialized.
  const conds = req.filters.map((f) => condition(f, typeExpr, args));
  const driver = driverOf(conds);
  for (const c of conds) where.push(c === driver ? `r.id IN (${c.sql})` : probe(c));
  return where.join(" AND ");
}

/** The general plan: every match of the driver, probed, sorted, cut at `limit`. */
function generalPage(req: SearchRequest, cursor: Cursor | undefined, backwards: boolean, limit: number, orgId: string) {
  const args = new Args(orgId);
  const where = [whereClause(req, args)];
  const sortExprs = req.sort.map((k) => sortExpression(k, args));
  const desc = req.sort.map((k) => k.desc);
  if (cursor) where.push(keysetCondition(sortExprs, desc, cursor.keys, cursor.id, backwards, args));
  // ORDER BY the selected aliases so each sort value is computed once per candidate row.
  const order = [...sortExprs.map((_, i) => `s${i} ${desc[i] !== backwards ? "DESC" : "ASC"}`), `r.id ${backwards ? "DESC" : "ASC"}`];
  const select = ["r.resource_type", "r.id", "r.content", ...sortExprs.map((e, i) => `${e} AS s${i}`)];
  const sql = `SELECT ${select.join(", ")} FROM fhir_resources r WHERE ${where.join(" AND ")} ORDER BY ${order.join(", ")} LIMIT ${args.add(limit)}`;
  return { sql, args: args.values };
}

/**
 * Driver matches from which the sort-ordered plan wins. The general plan costs a few µs per
 * driver match; the sort-ordered one a few µs per candidate until the page is full, i.e. about
 * page size × (resources of the type / matches) when matches are spread over the sort order.
 * At ~100k resources the two meet near 1,000 matches for a page of 20; larger pages need more.
 */
const scanThreshold = (count: number) => Math.min(5000, Math.max(1000, 50 * (count + 1)));

/** Whether the general plan's driver matches at least `threshold` resources (counted on its index, up to that). */
async function driverReaches(db: D1Database, orgId: string, req: SearchRequest, threshold: number): Promise<boolean> {
  const ranked = req.filters.map((f) => condition(f, "?2", new Args(orgId)));
  const driver = driverOf(ranked);
  if (!driver) return true;
  const args = new Args(orgId);
  const own = condition(req.filters[ranked.indexOf(driver)]!, args.add(req.types[0]), args);
  const ids = own.sql.replace(/^SELECT \S+ FROM/, "SELECT 1 FROM");
  const row = await db
    .prepare(`SELECT COUNT(*) AS n FROM (${ids} LIMIT ${args.add(threshold)})`)
    .bind(...args.values)
    .first<{ n: number }>();
  return (row?.n ?? 0) >= threshold;
}

/**
 * The sort-ordered plan's segments. Without a filter requiring a value of the sort parameter,
 * resources without one match too: they sort as '' (first ascending, last descending, by id) and
 * are not in the index, so the general plan lists them, restricted to them, before or after the
 * walk. A segment entirely before the cursor is skipped; the cursor's keyset applies to its own.
 */
function scanSegments(scan: SortScan, req: SearchRequest, cursor: Cursor | undefined, orgId: string): Segment[] {
  const backwards = cursor?.dir === "p";
  const dated = (at: Cursor | undefined): Segment => (limit) => {
    const args = new Args(orgId);
    return { sql: sortScanPage(scan, req, at, backwards, limit, args), args: args.values };
  };
  if (scan.complete) return [dated(cursor)];
  const none: Filter = { kind: "missing", def: scan.key.def, missing: true };
  const undatedReq = { ...req, filters: [...req.filters, none] };
  const undated = (at: Cursor | undefined): Segment => (limit) => generalPage(undatedReq, at, backwards, limit, orgId);
  const undatedFirst = scan.key.desc === backwards;
  if (!cursor) return undatedFirst ? [undated(undefined), dated(undefined)] : [dated(undefined), undated(undefined)];
  if (cursor.keys[0] === "") return undatedFirst ? [undated(cursor), dated(undefined)] : [undated(cursor)];
  return undatedFirst ? [dated(cursor)] : [dated(cursor), undated(undefined)];
}

/**
 * The page's queries. Both plans return the same rows in the same order (the cursor keys are the
 * same sort values), so the first page's choice travels in the cursor and later pages skip the
 * count; `force` overrides it where the sort-ordered plan applies (tests compare the two).
 */
export async function planPage(db: D1Database, orgId: string, req: SearchRequest, cursor: Cursor | undefined, force?: "general" | "scan"): Promise<PagePlan> {
  const scan = sortScanFor(req);
  const segments = scan && scanSegments(scan, req, cursor, orgId);
  // D1 binds at most 100 parameters per query, and the walk binds the sort parameter's filters twice.
  const fits = segments?.every((s) => s(1).args.length <= D1_MAX_PARAMS);
  const chosen = force ?? (cursor ? (cursor.plan ?? "general") : undefined);
  if (segments && fits && (chosen ? chosen === "scan" : await driverReaches(db, orgId, req, scanThreshold(req.count)))) {
    return { segments, plan: "scan" };
  }
  return { segments: [(limit) => generalPage(req, cursor, cursor?.dir === "p", limit, orgId)] };
}
