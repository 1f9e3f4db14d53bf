// The walk plan: pages through an index of fhir_resources in the search's own order (by id, or by
// _lastUpdated; at system level by _lastUpdated across types), tests each resource against every
// filter, and stops when the page is full. It reads at most MAX_CANDIDATES + 1 index rows per
// page (a window starting at the cursor), so a search whose matches are rare is refused
// (too-costly) instead of reading the organization's whole store.
import type { Checked } from "./checked";
import { Args, MAX_CANDIDATES } from "./args";
import { condition } from "./conditions";
import { joinTerms, probe, renderSubquery } from "./sql";
import { dateRowClause, splitPrefix } from "./value-clauses";
import type { Cursor } from "./cursor";
import type { Filter, SearchRequest } from "./parse";
import { parseReference } from "../index-extract";
import { keysetCondition } from "./sort";

export interface Walk {
  index: string;
  /** Index-leading equalities besides the org ("r.resource_type = ?"), added per statement. */
  typed: boolean;
  /** The order: expressions over r and their directions (the cursor's keys, in this order). */
  exprs: string[];
  desc: boolean[];
  /** Whether the index holds the order's columns, so _lastUpdated filters bound the window. */
  byUpdated: boolean;
}

const SYSTEM_ORDER = ["r.last_updated", "r.resource_type", "r.id"];
/** What the window reads of each resource: what its tests and order need, not the content. */
const WINDOW_COLUMNS = "r.rowid AS rid, r.org_id, r.resource_type, r.id, r.last_updated, r.deleted";

/**
 * The walk answering `req`, when its order is one an index holds: a type's id or _lastUpdated
 * order (one sort key at most), or, at system level, _lastUpdated order (the default there).
 */
export function walkFor(req: SearchRequest): Walk | undefined {
  const key = req.sort[0];
  if (req.sort.length > 1) return undefined;
  if (req.types.length !== 1) {
    if (key && key.def.code !== "_lastUpdated") return undefined;
    const desc = key?.desc ?? false;
    return { index: "fhir_resources_updated_idx", typed: false, exprs: SYSTEM_ORDER, desc: SYSTEM_ORDER.map(() => desc), byUpdated: true };
  }
  if (key && key.def.code !== "_id" && key.def.code !== "_lastUpdated") return undefined;
  const byUpdated = key?.def.code === "_lastUpdated";
  return {
    index: byUpdated ? "fhir_resources_type_updated_idx" : "sqlite_autoindex_fhir_resources_1",
    typed: true,
    exprs: key ? [byUpdated ? "r.last_updated" : "r.id"] : [],
    desc: key ? [key.desc] : [],
    byUpdated,
  };
}

/** A _lastUpdated filter the window can seek: one value whose clause is a range on the column. */
const seekable = (f: Filter) => f.kind === "param" && f.def.code === "_lastUpdated" && f.values.length === 1 && !["ne", "ap"].includes(splitPrefix(f.values[0]!).prefix);


/** The window's rows and the filters tested on them; `keyset` adds the cursor's position. */
function windowOf(walk: Walk, req: SearchRequest, args: Args, cursor: Cursor | undefined, backwards: boolean) {
  const range = ["r.org_id = ?1"];
  const tests = ["r.deleted = 0"];
  let typeExpr = "r.resource_type";
  if (walk.typed) {
    typeExpr = args.add(req.types[0]);
    range.push(`r.resource_type = ${typeExpr}`);
  } else if (req.types.length > 1) tests.push(`r.resource_type IN (SELECT value FROM json_each(${args.add(JSON.stringify(req.types))}))`);
  for (const f of req.filters) {
    if (f.kind === "param" && f.def.code === "_lastUpdated") {
      (walk.byUpdated && seekable(f) ? range : tests).push(dateRowClause(f.values, "r.last_updated", "r.last_updated", args));
    } else tests.push(probe(condition(f, typeExpr, args)));
  }
  if (cursor) {
    const after = (walk.desc[0] ?? false) !== backwards;
    // The first key's bound lets the index seek to the cursor.
    if (walk.exprs[0]) range.push(`${walk.exprs[0]} ${after ? "<=" : ">="} ${args.add(cursor.keys[0])}`);
    range.push(keysetCondition(walk.exprs, walk.desc, cursor.keys, cursor.id, backwards, args));
  }
  const dir = (d: boolean) => (d !== backwards ? "DESC" : "ASC");
  const order = walk.exprs.map((e, i) => `${e} ${dir(walk.desc[i]!)}`);
  if (walk.exprs.at(-1) !== "r.id") order.push(`r.id ${backwards ? "DESC" : "ASC"}`);
  return { from: `fhir_resources r INDEXED BY ${walk.index} WHERE ${joinTerms(range, "AND")}`, tests, order: order.join(", ") };
}

/** One page of the walk (up to `limit` rows), selecting the walk's keys as s0, s1, ... */
export function walkPage(walk: Walk, req: SearchRequest, cursor: Cursor | undefined, backwards: boolean, limit: number, orgId: string): Checked {
  const driver = idOrderedDriver(walk, req);
  if (driver !== undefined) return drivenPage(walk, req, driver, cursor, backwards, limit, orgId);
  const args = new Args(orgId);
  const w = windowOf(walk, req, args, cursor, backwards);
  const select = ["r.resource_type", "r.id", "c.content", ...walk.exprs.map((e, i) => `${e} AS s${i}`)];
  // The outer ORDER BY repeats the window's, which SQLite then takes from the window's order
  // (a co-routine it stops reading once the page is full) instead of sorting the window. The
  // window leaves the content out (rejected rows never read it); matches read it by rowid.
  const sql = `SELECT ${select.join(", ")} FROM (SELECT ${WINDOW_COLUMNS} FROM ${w.from} ORDER BY ${w.order} LIMIT ${MAX_CANDIDATES + 1}) r CROSS JOIN fhir_resources c ON c.rowid = r.rid WHERE ${joinTerms(w.tests, "AND")} ORDER BY ${w.order} LIMIT ${args.add(limit)}`;
  return { sql, args: args.values, check: args.checkSql(), full: args.fullSql(`SELECT 1 FROM ${w.from}`) };
}

/** How many resources match, read through the walk's window from its start. */
export function walkCount(walk: Walk, req: SearchRequest, orgId: string): Checked {
  const args = new Args(orgId);
  const w = windowOf(walk, req, args, undefined, false);
  const sql = `SELECT COUNT(*) AS n FROM (SELECT ${WINDOW_COLUMNS} FROM ${w.from} LIMIT ${MAX_CANDIDATES + 1}) r WHERE ${joinTerms(w.tests, "AND")}`;
  return { sql, args: args.values, check: args.checkSql(), full: args.fullSql(`SELECT 1 FROM ${w.from}`) };
}

/**
 * A filter whose value index lists its matches in id order: one token with system and code, one
 * Type/id reference, or one `:exact` string (its folded value fixed, the index goes on with the
 * resource id: tables.ts). References come first (they name fewer resources, as a rule).
 */
function idOrderedDriver(walk: Walk, req: SearchRequest): number | undefined {
  if (!walk.typed || walk.byUpdated) return undefined;
  const seeks = (f: Filter, type: string): boolean => {
    if (f.kind !== "param" || f.values.length !== 1 || f.def.type !== type) return false;
    if (type === "string") return f.modifier === "exact";
    if (f.modifier !== undefined) return false;
    const v = f.values[0]!;
    if (type === "token") return v.indexOf("|") > 0 && !v.endsWith("|");
    return !/^https?:/.test(v) && parseReference(v) !== undefined;
  };
  for (const type of ["reference", "token", "string"]) {
    const i = req.filters.findIndex((f) => seeks(f, type));
    if (i >= 0) return i;
  }
  return undefined;
}

/**
 * The walk in id order over one filter's matches instead of the type's resources: the driver's
 * value index read from the cursor in id order (at most MAX_CANDIDATES + 1 rows), each match
 * tested against the other filters, stopping once the page is full. The same rows, in the same
 * order and with the same keys, as the type's walk; it reads a fraction of them (e.g. one LOINC
 * code of six: a sixth), and refuses only where the type's walk would have too.
 */
function drivenPage(walk: Walk, req: SearchRequest, driver: number, cursor: Cursor | undefined, backwards: boolean, limit: number, orgId: string): Checked {
  const args = new Args(orgId);
  const typeExpr = args.add(req.types[0]);
  const dir = (walk.desc[0] ?? false) !== backwards ? "DESC" : "ASC";
  const ids = condition(req.filters[driver]!, typeExpr, args).ids;
  const rows = cursor ? { ...ids, where: `${ids.where} AND resource_id ${dir === "DESC" ? "<" : ">"} ${args.add(cursor.id)}` } : ids;
  const tests = ["r.deleted = 0"];
  req.filters.forEach((f, i) => {
    if (i === driver) return;
    if (f.kind === "param" && f.def.code === "_lastUpdated") tests.push(dateRowClause(f.values, "r.last_updated", "r.last_updated", args));
    else tests.push(probe(condition(f, typeExpr, args)));
  });
  const select = ["r.resource_type", "r.id", "r.content", ...walk.exprs.map((e, i) => `${e} AS s${i}`)];
  // As in walkPage, the outer ORDER BY repeats the window's, so SQLite stops reading it once the page is full.
  const window = `${renderSubquery(rows, "DISTINCT resource_id AS id")} ORDER BY resource_id ${dir} LIMIT ${MAX_CANDIDATES + 1}`;
  const sql = `SELECT ${select.join(", ")} FROM (${window}) w CROSS JOIN fhir_resources r ON r.org_id = ?1 AND r.resource_type = ${typeExpr} AND r.id = w.id WHERE ${joinTerms(tests, "AND")} ORDER BY w.id ${dir} LIMIT ${args.add(limit)}`;
  return { sql, args: args.values, check: args.checkSql(), full: args.fullSql(renderSubquery(rows, "1")) };
}
