// The page query of a search: the general plan (the most selective filter drives, the rest probe,
// the matches are sorted), the sort-ordered one (sort-scan.ts) or the walk (walk.ts), whichever
// should be cheaper; and the count. Every statement reads a bounded number of rows (MAX_CANDIDATES
// per set or window, see Args.bounded): a search that would need more is refused as too costly.
import { ApiError, tooCostly } from "../../../platform/errors";
import type { Checked } from "./checked";
import { Args, MAX_CANDIDATES } from "./args";
import { condition } from "./conditions";
import { type IdCondition, joinTerms, probe, renderSubquery, resourcesOf } from "./sql";
import type { Cursor } from "./cursor";
import type { Filter, SearchRequest } from "./parse";
import { keysetCondition, sortExpression } from "./sort";
import { type SortScan, sortScanFor, sortScanPage } from "./sort-scan";
import { type Walk, walkCount, walkFor, walkPage } from "./walk";
import { driverDensity } from "./driver-density";

/** One page query; `limit` is how many rows it may return. */
export type Segment = (limit: number) => Checked;

export type Plan = "general" | "scan" | "walk";

export interface Row {
  resource_type: string;
  id: string;
  content: string;
  [sortKey: string]: unknown;
}

/** The most selective positive filter: it drives the general plan. */
const driverOf = (conds: IdCondition[]): IdCondition | undefined => conds.filter(drives).sort((a, b) => a.rank - b.rank)[0];
const drives = (c: IdCondition) => !c.negate && !c.probeOnly;

/**
 * WHERE clause (with the tenant and type) shared by the page query and the count. The driver's
 * ids are enumerated from an index, as a bounded set (every resource of the type without one);
 * every other filter is a correlated probe by owner id, so no large id set is ever materialized.
 */
export function whereClause(req: SearchRequest, args: Args, drive?: number): string {
  const where = ["r.org_id = ?1", "r.deleted = 0"];
  let typeExpr = "r.resource_type";
  if (req.types.length === 1) {
    typeExpr = args.add(req.types[0]);
    where.push(`r.resource_type = ${typeExpr}`);
  } else if (req.types.length > 1) {
    where.push(`r.resource_type IN (SELECT value FROM json_each(${args.add(JSON.stringify(req.types))}))`);
  }
  const conds = req.filters.map((f) => condition(f, typeExpr, args));
  const driver = drive === undefined ? driverOf(conds) : conds[drive];
  for (const c of conds) where.push(c === driver ? `r.id IN (${args.bounded(c)})` : probe(c));
  if (!driver && req.types.length === 1) {
    where.push(`r.id IN (${args.bounded({ ids: resourcesOf(typeExpr), negate: false, rank: 9 })})`);
  }
  return joinTerms(where, "AND");
}

/** The general plan: every match of the driver, probed, sorted, cut at `limit`. */
function generalPage(req: SearchRequest, cursor: Cursor | undefined, backwards: boolean, limit: number, orgId: string, drive?: number): Checked {
  const args = new Args(orgId);
  const where = [whereClause(req, args, drive)];
  const sortExprs = req.sort.map((k) => sortExpression(k, args));
  const desc = req.sort.map((k) => k.desc);
  if (cursor) where.push(keysetCondition(sortExprs, desc, cursor.keys, cursor.id, backwards, args));
  // ORDER BY the selected aliases so each sort value is computed once per candidate row.
  const order = [...sortExprs.map((_, i) => `s${i} ${desc[i] !== backwards ? "DESC" : "ASC"}`), `r.id ${backwards ? "DESC" : "ASC"}`];
  const select = ["r.resource_type", "r.id", "r.content", ...sortExprs.map((e, i) => `${e} AS s${i}`)];
  const sql = `SELECT ${select.join(", ")} FROM fhir_resources r WHERE ${joinTerms(where, "AND")} ORDER BY ${order.join(", ")} LIMIT ${args.add(limit)}`;
  return { sql, args: args.values, check: args.checkSql() };
}

/**
 * Driver matches from which the sort-ordered plan wins. The general plan costs a few µs per
 * driver match; the sort-ordered one a few µs per candidate until the page is full, i.e. about
 * page size × (resources of the type / matches) when matches are spread over the sort order.
 * At ~100k resources the two meet near 1,000 matches for a page of 20; larger pages need more.
 */
const scanThreshold = (count: number) => Math.min(5000, Math.max(1000, 50 * (count + 1)));

/**
 * Whether the general plan's driver matches at least `threshold` resources (counted on its index,
 * up to that). `remembered`: the isolate's recent answer may stand (driver-density.ts); the keys
 * of answers taken from it are added to `used`, so that a plan they chose can be retried afresh.
 */
async function driverReaches(db: D1Database, orgId: string, req: SearchRequest, threshold: number, used?: string[]): Promise<boolean> {
  const ranked = req.filters.map((f) => condition(f, "?2", new Args(orgId)));
  const driver = driverOf(ranked);
  if (!driver) return true;
  const args = new Args(orgId);
  const own = condition(req.filters[ranked.indexOf(driver)]!, args.add(req.types[0]), args);
  const ids = args.bounded(own, "1");
  const sql = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM (${ids}) LIMIT ${args.add(threshold)})`;
  const key = `${sql}\u0000${JSON.stringify(args.values)}`;
  const known = used ? driverDensity.get(key) : undefined;
  if (known !== undefined) {
    used!.push(key);
    return known;
  }
  const row = await db
    .prepare(sql)
    .bind(...args.values)
    .first<{ n: number }>();
  const reaches = (row?.n ?? 0) >= threshold;
  driverDensity.set(key, reaches);
  return reaches;
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
    const { sql, window } = sortScanPage(scan, req, at, backwards, limit, args);
    return { sql, args: args.values, check: args.checkSql(), full: args.fullSql(window) };
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
 * Statements that ride in the page's batch (one D1 round trip): built from the page statement
 * (its SQL, to use as a subquery, and its arguments, which they take first). The search's first
 * _include round uses it (execute.ts).
 */
export type Rider = (page: Checked) => { sql: string; args: unknown[] }[];

interface Outcome {
  rows: Row[];
  /** The riders' results, in order (only when the page statement carried them). */
  riders?: Record<string, unknown>[][];
  /** A bounded set overflowed: the rows may be incomplete. */
  over: boolean;
  /** The window was read to its end (asked only with `withFull`). */
  full: boolean;
}

/** Runs a statement with its checks in one batch; the window's only when asked. */
async function run(db: D1Database, s: Checked, withFull = false, rider?: Rider): Promise<Outcome> {
  const named = [s.check && ["check", s.check], ["rows", s.sql], withFull && s.full && ["full", s.full]].filter((x): x is [string, string] => Boolean(x));
  const riding = rider?.(s) ?? [];
  const results = await db.batch<Record<string, unknown>>([...named.map(([, sql]) => db.prepare(sql).bind(...s.args)), ...riding.map((r) => db.prepare(r.sql).bind(...r.args))]);
  const of = (name: string) => results[named.findIndex(([n]) => n === name)]?.results;
  const out: Outcome = { rows: (of("rows") ?? []) as Row[], over: Boolean(of("check")?.[0]?.over), full: Boolean(of("full")?.[0]?.full) };
  if (riding.length) out.riders = results.slice(named.length).map((r) => r.results);
  return out;
}

const narrow = "narrow it with a more selective filter";
/** Filters tried as the general plan's driver before giving up on it (each try reads a bounded set). */
const MAX_DRIVERS_TRIED = 3;

/**
 * Runs a page statement; a bounded set that overflowed, or a window read to its end without
 * filling the page (what lies beyond was not read), makes the search too costly.
 */
async function readBounded(db: D1Database, s: Checked, limit: number, hint = ""): Promise<Row[]> {
  const out = await run(db, s);
  if (out.over) throw tooCostly(`A filter of this search matches more than ${MAX_CANDIDATES} resources; ${narrow}`);
  // A full page needs no look at the window: only a short one may have stopped at its end.
  if (out.rows.length < limit && s.full && (await run(db, { sql: s.full, args: s.args })).rows[0]?.full) {
    throw tooCostly(`This search read ${MAX_CANDIDATES} resources without filling its page; ${narrow}${hint}`);
  }
  return out.rows;
}

async function readSegments(db: D1Database, segments: Segment[], limit: number): Promise<Row[]> {
  let rows: Row[] = [];
  for (const segment of segments) {
    if (rows.length >= limit) break;
    rows = [...rows, ...(await readBounded(db, segment(limit - rows.length), limit - rows.length))];
  }
  return rows;
}

const readWalk = (db: D1Database, walk: Walk, req: SearchRequest, cursor: Cursor | undefined, limit: number, orgId: string): Promise<Row[]> =>
  readBounded(db, walkPage(walk, req, cursor, cursor?.dir === "p", limit, orgId), limit, req.types.length === 1 ? "" : " or name one _type");

/**
 * Reads up to `limit` rows of the page at `cursor`. The cursor carries the first page's plan; a
 * general plan whose driver proves too broad falls back to the walk where one has its order.
 * `force` picks a plan where it applies (tests compare them).
 */
export interface Page {
  rows: Row[];
  plan: Plan;
  /** The rider's results, where the plan's statement could carry it (the general plan's). */
  riders?: Record<string, unknown>[][];
}

export async function readPage(db: D1Database, orgId: string, req: SearchRequest, cursor: Cursor | undefined, limit: number, force?: Plan, rider?: Rider): Promise<Page> {
  const used: string[] = [];
  try {
    return await choosePage(db, orgId, req, cursor, limit, force, used, rider);
  } catch (e) {
    // A remembered density chose a plan the data no longer suits: count afresh and choose again.
    if (!used.length || !(e instanceof ApiError && e.code === "TOO_COSTLY")) throw e;
    for (const key of used) driverDensity.forget(key);
    return choosePage(db, orgId, req, cursor, limit, force, undefined, rider);
  }
}

async function choosePage(db: D1Database, orgId: string, req: SearchRequest, cursor: Cursor | undefined, limit: number, force: Plan | undefined, used?: string[], rider?: Rider): Promise<Page> {
  const walk = walkFor(req);
  if (req.types.length !== 1) {
    if (!walk) throw tooCostly("A search over several types sorts by _lastUpdated only; name one _type to sort by anything else");
    return { rows: await readWalk(db, walk, req, cursor, limit, orgId), plan: "walk" };
  }
  const chosen = force ?? cursor?.plan;
  const scan = sortScanFor(req);
  if (scan && chosen !== "general" && chosen !== "walk" && (chosen === "scan" || (await driverReaches(db, orgId, req, scanThreshold(limit - 1), used)))) {
    return { rows: await readSegments(db, scanSegments(scan, req, cursor, orgId), limit), plan: "scan" };
  }
  const drivers = driversToTry(req, orgId);
  if (walk && (chosen === "walk" || (!chosen && drivers[0] === undefined))) return { rows: await readWalk(db, walk, req, cursor, limit, orgId), plan: "walk" };
  // A broad driver costs the general plan every match read twice (the set and its check) and
  // sorted, where the walk stops once the page is full: walk first, unless matches prove too sparse.
  // Ids and references name their resources: no count (one D1 round trip) for those.
  if (walk && !chosen && !namesItsMatches(req, orgId) && (await driverReaches(db, orgId, req, scanThreshold(limit - 1), used))) {
    const rows = await readWalk(db, walk, req, cursor, limit, orgId).catch((e: unknown) => {
      if (e instanceof ApiError && e.code === "TOO_COSTLY") return undefined;
      throw e;
    });
    if (rows) return { rows, plan: "walk" };
  }
  for (const drive of drivers) {
    const general = await run(db, generalPage(req, cursor, cursor?.dir === "p", limit, orgId, drive), false, rider);
    if (!general.over) return { rows: general.rows, plan: "general", ...(general.riders ? { riders: general.riders } : {}) };
  }
  if (walk && force !== "general") return { rows: await readWalk(db, walk, req, cursor, limit, orgId), plan: "walk" };
  throw tooCostly(`This search matches more than ${MAX_CANDIDATES} resources before sorting; ${narrow}, or sort by _id or _lastUpdated`);
}

/** Whether the general plan's driver is an _id or a reference (rank 1 or less): a few matches, as a rule. */
const namesItsMatches = (req: SearchRequest, orgId: string): boolean => (driverOf(req.filters.map((f) => condition(f, "?2", new Args(orgId))))?.rank ?? 9) <= 1;

/** How many sort values a cursor of `req` holds: its sort keys, or the walk's order at system level. */
export const cursorKeys = (req: SearchRequest): number => (req.types.length === 1 ? req.sort.length : (walkFor(req)?.exprs.length ?? 0));

/** The number of matches, or undefined when counting them would read more than MAX_CANDIDATES rows. */
export async function countMatches(db: D1Database, orgId: string, req: SearchRequest): Promise<number | undefined> {
  const walk = req.types.length === 1 ? undefined : walkFor({ ...req, sort: [] });
  if (walk) {
    const out = await run(db, walkCount(walk, req, orgId), true);
    return out.over || out.full ? undefined : Number(out.rows[0]?.n ?? 0);
  }
  for (const drive of driversToTry(req, orgId)) {
    const args = new Args(orgId);
    const out = await run(db, { sql: `SELECT COUNT(*) AS n FROM fhir_resources r WHERE ${whereClause(req, args, drive)}`, args: args.values, check: args.checkSql() });
    if (!out.over) return Number(out.rows[0]?.n ?? 0);
  }
  return undefined;
}

/**
 * A cheap estimate of the number of matches (`_total=estimate`): the driver's distinct resources
 * counted on its value index alone, one statement and no row of fhir_resources read (the string,
 * token and reference value indexes hold the resource id). The other filters are not applied, so
 * it is an upper bound (exact for a search with one filter). Undefined past MAX_CANDIDATES.
 * Where the driver cannot be counted that way (none, a negation, a window read beyond its matches,
 * an access policy's scope that must bound every count), the accurate count answers.
 */
export async function estimateMatches(db: D1Database, orgId: string, req: SearchRequest): Promise<number | undefined> {
  const ranked = req.filters.map((f) => condition(f, "?2", new Args(orgId)));
  const driver = driverOf(ranked);
  if (req.types.length !== 1 || !driver || driver.window || req.filters.some((f) => f.kind === "scope")) return countMatches(db, orgId, req);
  const args = new Args(orgId);
  const own = condition(req.filters[ranked.indexOf(driver)]!, args.add(req.types[0]), args);
  const sql = `SELECT COUNT(*) AS n FROM (${renderSubquery(own.ids, `DISTINCT ${own.ids.select}`)} LIMIT ${args.add(MAX_CANDIDATES + 1)})`;
  const row = await db
    .prepare(sql)
    .bind(...args.values)
    .first<{ n: number }>();
  const n = Number(row?.n ?? 0);
  return n > MAX_CANDIDATES ? undefined : n;
}

/**
 * Indexes of the filters to try as the general plan's driver, in order: the driver by rank, then
 * the other positive filters (a broad first choice may give way to a narrow one). [undefined]
 * when there is none (every resource of the type is the candidate set).
 */
function driversToTry(req: SearchRequest, orgId: string): (number | undefined)[] {
  const conds = req.filters.map((f) => condition(f, "?2", new Args(orgId)));
  const driver = driverOf(conds);
  if (!driver) return [undefined];
  return [driver, ...conds.filter((c) => drives(c) && c !== driver)].slice(0, MAX_DRIVERS_TRIED).map((c) => conds.indexOf(c));
}
