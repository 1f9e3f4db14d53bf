// The SQL building blocks of a search: a subquery as a value (Subquery) rendered by one
// function, so "the same subquery selecting 1" or "through the owner index" is another rendering
// of it, never an edit of its text; the condition on a resource id a filter becomes, and the
// correlated probe it is when it does not drive; and terms joined at a bounded depth.

/** Terms joined flat; more nest in halves (D1 allows expression trees 100 deep, and a flat join of n terms is n deep). */
const FLAT = 16;

/** `parts` joined by `op` in an expression tree of logarithmic depth (SQLite flattens it again when planning). */
export function joinTerms(parts: string[], op: "AND" | "OR"): string {
  if (parts.length <= FLAT) return parts.join(` ${op} `);
  const half = Math.ceil(parts.length / 2);
  return `(${joinTerms(parts.slice(0, half), op)}) ${op} (${joinTerms(parts.slice(half), op)})`;
}

/** A subquery: SELECT `select` FROM `from` [INDEXED BY `indexedBy`] WHERE `where`. */
export interface Subquery {
  /** What it selects (a condition's: its id column). */
  select: string;
  /** The table (or table-valued function, "json_each(?3)") it reads. */
  from: string;
  /** The index it must read `from` through. */
  indexedBy?: string;
  /** Its WHERE clause: last, so more terms can be appended. */
  where: string;
}

/** The one rendering of a subquery; `select` instead of its own. */
export function renderSubquery(q: Subquery, select = q.select): string {
  return `SELECT ${select} FROM ${q.from}${q.indexedBy ? ` INDEXED BY ${q.indexedBy}` : ""} WHERE ${q.where}`;
}

/** A condition on one resource id expression: "<idExpr> IN (...)" or "NOT IN". */
export interface IdCondition {
  /** The ids that satisfy it: `ids.select` is their column. */
  ids: Subquery;
  negate: boolean;
  /** Lower is more selective: the most selective filter drives the query, the others probe. */
  rank: number;
  /** Never the driver (an access policy's condition over several branches: a probe of each candidate). */
  probeOnly?: boolean;
  /**
   * For a condition that reads more index rows than it matches (a substring, a `ne`, a column the
   * index does not lead with): the rows it reads (`rows.select`: the columns the test needs) and the
   * test on each (columns of `w`), so Args.bounded can cut it on reads.
   */
  window?: { rows: Subquery; pred: string };
}

/**
 * The condition as a correlated probe for the row `r`. Index-table probes are pinned to the
 * owner index (org, type, resource, code): left alone, SQLite turns EXISTS into IN and
 * materializes every matching row of the value index (e.g. all dates after X) per query.
 */
export function probe(c: IdCondition, idExpr = "r.id"): string {
  const id = c.ids.select;
  const body = renderSubquery({ ...c.ids, indexedBy: id === "resource_id" ? `${c.ids.from}_owner_idx` : undefined }, "1");
  return `${c.negate ? "NOT " : ""}EXISTS (${body} AND ${id} = ${idExpr})`;
}

/** The live resources of `typeExpr`, read from their own table. */
export const resourcesOf = (typeExpr: string): Subquery => ({ select: "id", from: "fhir_resources", where: `org_id = ?1 AND resource_type = ${typeExpr} AND deleted = 0` });
