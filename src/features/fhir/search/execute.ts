// Runs a parsed search against D1: the page of matches (keyset paging), the optional total,
// then _include/_revinclude (with :iterate), and assembles the searchset Bundle.
import type { FhirDefinitions } from "../definitions";
import type { Bundle, BundleEntry, Resource } from "../port";
import { shapeResource } from "../summary";
import { tooCostly } from "../../../platform/errors";
import { Args, D1_MAX_PARAMS, MAX_CANDIDATES } from "./args";
import { type Cursor, decodeCursor, encodeCursor, queryFingerprint } from "./cursor";
import { type Plan, type Rider, type Row, countMatches, cursorKeys, estimateMatches, readPage, whereClause } from "./page";
import { type IncludeSpec, type SearchRequest, referenceParams } from "./parse";

export interface SearchTarget {
  db: D1Database;
  orgId: string;
  /** Absolute base of this organization's FHIR API, without a trailing slash. */
  baseUrl: string;
  /** The search parameters of the store (what _include=Type:* reads through). */
  definitions: FhirDefinitions;
  /** The results the store's access policy shows, when it may hide some (matches, includes, totals). */
  filter?: (resources: Resource[]) => Resource[] | Promise<Resource[]>;
  /** How the policy shows what it keeps (fields it hides removed), when it may hide some. */
  redact?: (resources: Resource[]) => Promise<Resource[]>;
}

/** A row's sort values (s0, s1, ...), the position a cursor resumes from. */
function keysOf(r: Row): (string | number | null)[] {
  const keys: (string | number | null)[] = [];
  for (let i = 0; `s${i}` in r; i++) keys.push(r[`s${i}`] as string | number | null);
  return keys;
}

const MAX_INCLUDED = 1000;
const ITERATE_ROUNDS = 3;

/**
 * The statement selecting up to `limit` current versions that match a search's filters, in id
 * order (conditional operations: callers batch several into one round trip).
 */
export function matchStatement(target: SearchTarget, req: SearchRequest, limit: number): D1PreparedStatement {
  // Unbounded: a conditional write that missed a match would create a duplicate.
  const args = new Args(target.orgId, false);
  const where = whereClause(req, args);
  return target.db
    .prepare(`SELECT r.resource_type, r.id, r.version_id, r.last_updated, r.deleted, r.content FROM fhir_resources r WHERE ${where} ORDER BY r.id LIMIT ${args.add(limit)}`)
    .bind(...args.values);
}

/** `plan` forces a page plan where it applies (tests compare them). */
export async function executeSearch(target: SearchTarget, req: SearchRequest, params: URLSearchParams, plan?: Plan): Promise<Bundle> {
  const fingerprint = queryFingerprint(params);
  const cursor = req.cursor ? decodeCursor(req.cursor, target.orgId, fingerprint, cursorKeys(req)) : undefined;
  const limit = req.count + 1;
  // _count=0 and _summary=count ask for the total alone: no page, so no entries and no next link.
  const countOnly = req.count === 0 || req.summary === "count";
  const wantTotal = req.total === "accurate" || req.total === "estimate" || countOnly;
  // An estimate is the driver's matches counted on its index (estimateMatches), unless a policy filters what is shown.
  const count = () =>
    target.filter ? countVisible(target, req, target.filter) : req.total === "estimate" && !countOnly ? estimateMatches(target.db, target.orgId, req) : countMatches(target.db, target.orgId, req);
  // A first page that holds every match is its own total: the count (up to ~10,000 index rows
  // read) runs only when more pages follow. A later page or a count alone is counted beside it.
  const countBeside = wantTotal && (countOnly || cursor !== undefined);
  const [page, countedBeside] = await Promise.all([
    countOnly ? undefined : readPage(target.db, target.orgId, req, cursor, limit, plan, includeRider(target.definitions, req)),
    countBeside ? count() : undefined,
  ]);
  let rows = page?.rows ?? [];
  const more = rows.length > req.count;
  const counting = countBeside || (wantTotal && more);
  const counted = countBeside ? countedBeside : counting ? await count() : undefined;
  // An estimate may be left out; an accurate total (or a count alone) past the bound cannot be given.
  if (counting && counted === undefined && (req.total === "accurate" || countOnly)) {
    throw tooCostly(`This search matches more than ${MAX_CANDIDATES} resources, too many to count; ask _total=estimate or narrow it`);
  }
  rows = rows.slice(0, req.count);
  if (cursor?.dir === "p") rows.reverse();
  // Links page over every row read; entries, includes and totals hold what the policy shows.
  const matches = await shown(target, rows.map((r) => JSON.parse(r.content) as Resource));
  let total = counted;
  if (total === undefined && !cursor && !more) total = matches.length;
  const included = await shown(target, await includes(target, req, matches, page?.riders && riddenIncludes(page.riders, matches)));
  const [matchesShown, includedShown] = target.redact ? await Promise.all([target.redact(matches), target.redact(included)]) : [matches, included];
  const entry: BundleEntry[] = [
    ...matchesShown.map((m) => entryOf(target, shapeResource(m, req.summary, req.elements), "match")),
    ...includedShown.map((m) => entryOf(target, m, "include")),
  ];
  if (req.warnings.length) {
    entry.push({
      resource: { resourceType: "OperationOutcome", issue: req.warnings.map((w) => ({ severity: "warning", code: "not-supported", diagnostics: w })) },
      search: { mode: "outcome" },
    });
  }
  const bundle: Bundle = { resourceType: "Bundle", id: crypto.randomUUID(), type: "searchset" };
  if (total !== undefined) bundle.total = total;
  bundle.link = pageLinks(target, req, params, fingerprint, rows, cursor, more, page?.plan);
  if (req.summary !== "count") bundle.entry = entry;
  return bundle;
}

const shown = async (target: SearchTarget, resources: Resource[]) => (target.filter ? target.filter(resources) : resources);

/** The number of matches the policy shows: all of them read (as bounded as a count) and filtered. */
async function countVisible(target: SearchTarget, req: SearchRequest, filter: NonNullable<SearchTarget["filter"]>): Promise<number | undefined> {
  const { rows } = await readPage(target.db, target.orgId, req, undefined, MAX_CANDIDATES + 1);
  if (rows.length > MAX_CANDIDATES) return undefined;
  return (await filter(rows.map((r) => JSON.parse(r.content) as Resource))).length;
}

function entryOf(target: SearchTarget, resource: Resource, mode: "match" | "include"): BundleEntry {
  return { fullUrl: `${target.baseUrl}/${resource.resourceType}/${resource.id}`, resource, search: { mode } };
}

function pageLinks(
  target: SearchTarget,
  req: SearchRequest,
  params: URLSearchParams,
  fingerprint: string,
  rows: Row[],
  cursor: Cursor | undefined,
  more: boolean,
  plan: Plan | undefined,
): { relation: string; url: string }[] {
  const path = req.types.length === 1 ? `/${req.types[0]}` : "";
  const url = (extra?: string) => {
    const p = new URLSearchParams([...params].filter(([k]) => k !== "_cursor"));
    if (extra) p.set("_cursor", extra);
    const qs = p.toString();
    return `${target.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  };
  const links = [{ relation: "self", url: cursor ? url(req.cursor) : url() }];
  const position = (r: Row, dir: "n" | "p"): string =>
    encodeCursor(target.orgId, { q: fingerprint, dir, keys: keysOf(r), id: r.id, type: r.resource_type, plan });
  const first = rows[0];
  const last = rows[rows.length - 1];
  const hasNext = cursor?.dir === "p" ? true : more;
  const hasPrevious = cursor ? (cursor.dir === "n" ? true : more) : false;
  if (hasNext && last) links.push({ relation: "next", url: url(position(last, "n")) });
  if (hasPrevious && first) links.push({ relation: "previous", url: url(position(first, "p")) });
  return links;
}

const key = (r: Resource) => `${r.resourceType}/${r.id}`;

/**
 * _include and _revinclude targets of the matches, then :iterate rounds over what was added.
 * Includes seek the owner index by source id, revincludes the value index by target id.
 */
async function includes(target: SearchTarget, req: SearchRequest, matches: Resource[], ridden?: Resource[]): Promise<Resource[]> {
  if (matches.length === 0 || (req.include.length === 0 && req.revinclude.length === 0)) return [];
  const seen = new Set(matches.map(key));
  const out: Resource[] = [];
  let frontier = matches;
  for (let round = 0; round <= ITERATE_ROUNDS && frontier.length && out.length < MAX_INCLUDED; round++) {
    const inc = req.include.filter((s) => round === 0 || s.iterate);
    const rev = req.revinclude.filter((s) => round === 0 || s.iterate);
    if (!inc.length && !rev.length) break;
    // The first round's _include targets may have come with the page (includeRider); its _revinclude did not.
    const found = round === 0 && ridden ? [...ridden, ...(rev.length ? await fetchIncludes(target, [], rev, frontier) : [])] : await fetchIncludes(target, inc, rev, frontier);
    frontier = found.filter((r) => !seen.has(key(r)));
    for (const r of frontier) seen.add(key(r));
    out.push(...frontier);
  }
  return out.slice(0, MAX_INCLUDED);
}

/** Bound parameters a rider adds after the page's (type, codes, target type). */
const RIDER_PARAMS = 3;

/**
 * The first _include round as statements riding in the page's batch, so `Encounter?patient=…&_include=
 * Encounter:subject` is one D1 round trip, not two. Each reads the targets of the page statement's
 * rows (the page as a subquery), tagged with the source's id: only the targets of the matches the
 * page keeps, and the access policy shows, are used (riddenIncludes). None where the page
 * statement's arguments leave no room for the rider's (D1 binds 100).
 */
function includeRider(definitions: FhirDefinitions, req: SearchRequest): Rider | undefined {
  const type = req.types[0];
  const specs = req.include.filter((s) => s.sourceType === "*" || s.sourceType === type);
  if (req.types.length !== 1 || !type || !specs.length) return undefined;
  return (page) => {
    const n = page.args.length;
    if (n + RIDER_PARAMS >= D1_MAX_PARAMS) return [];
    return specs.map((spec) => ({
      sql: `SELECT x.resource_id AS source, x.target_type || '/' || x.target_id AS target, r.content FROM fhir_idx_reference x INDEXED BY fhir_idx_reference_owner_idx
              CROSS JOIN fhir_resources r ON r.org_id = ?1 AND r.resource_type = x.target_type AND r.id = x.target_id
            WHERE x.org_id = ?1 AND x.resource_type = ?${n + 1} AND x.resource_id IN (SELECT id FROM (${page.sql}))
              AND x.code IN (SELECT value FROM json_each(?${n + 2})) AND (?${n + 3} IS NULL OR x.target_type = ?${n + 3}) AND r.deleted = 0
            LIMIT ${MAX_INCLUDED}`,
      args: [...page.args, type, JSON.stringify(spec.param === "*" ? referenceParams(definitions, type).map((p) => p.code) : [spec.param]), spec.targetType ?? null],
    }));
  };
}

/** The targets the rider read for the matches kept (the page's extra row and hidden matches left out). */
function riddenIncludes(results: Record<string, unknown>[][], matches: Resource[]): Resource[] {
  const sources = new Set(matches.map((m) => m.id));
  // One row per source and target: a target several matches name (their Patient) comes once.
  const targets = new Map<string, Resource>();
  for (const rows of results) {
    for (const row of rows) {
      if (sources.has(row.source as string) && !targets.has(row.target as string)) targets.set(row.target as string, JSON.parse(row.content as string) as Resource);
    }
  }
  return [...targets.values()];
}

async function fetchIncludes(target: SearchTarget, inc: IncludeSpec[], rev: IncludeSpec[], from: Resource[]): Promise<Resource[]> {
  const byType = new Map<string, string[]>();
  for (const r of from) byType.set(r.resourceType, [...(byType.get(r.resourceType) ?? []), r.id!]);
  const statements: D1PreparedStatement[] = [];
  for (const spec of inc) {
    for (const [type, ids] of byType) {
      if (spec.sourceType !== "*" && spec.sourceType !== type) continue;
      const codes = spec.param === "*" ? referenceParams(target.definitions, type).map((p) => p.code) : [spec.param];
      statements.push(
        target.db
          .prepare(
            `SELECT r.content FROM fhir_resources r WHERE r.org_id = ?1 AND r.deleted = 0 AND (r.resource_type, r.id) IN (
               SELECT x.target_type, x.target_id FROM fhir_idx_reference x INDEXED BY fhir_idx_reference_owner_idx WHERE x.org_id = ?1 AND x.resource_type = ?2
               AND x.resource_id IN (SELECT value FROM json_each(?4)) AND x.code IN (SELECT value FROM json_each(?3)) AND (?5 IS NULL OR x.target_type = ?5))
             LIMIT ${MAX_INCLUDED}`,
          )
          .bind(target.orgId, type, JSON.stringify(codes), JSON.stringify(ids), spec.targetType ?? null),
      );
    }
  }
  for (const spec of rev) {
    if (spec.sourceType === "*") continue;
    const codes = spec.param === "*" ? referenceParams(target.definitions, spec.sourceType).map((p) => p.code) : [spec.param];
    for (const [type, ids] of byType) {
      if (spec.targetType && spec.targetType !== type) continue;
      statements.push(
        target.db
          .prepare(
            `SELECT r.content FROM fhir_resources r WHERE r.org_id = ?1 AND r.resource_type = ?2 AND r.deleted = 0 AND r.id IN (
               SELECT x.resource_id FROM fhir_idx_reference x INDEXED BY fhir_idx_reference_value_idx WHERE x.org_id = ?1 AND x.resource_type = ?2
               AND x.code IN (SELECT value FROM json_each(?3)) AND x.target_type = ?4 AND x.target_id IN (SELECT value FROM json_each(?5)))
             LIMIT ${MAX_INCLUDED}`,
          )
          .bind(target.orgId, spec.sourceType, JSON.stringify(codes), type, JSON.stringify(ids)),
      );
    }
  }
  if (!statements.length) return [];
  const results = await target.db.batch<{ content: string }>(statements);
  return results.flatMap((r) => r.results.map((row) => JSON.parse(row.content) as Resource));
}
