// The store's reads for Bulk Data export: live current versions of one type, in
// (last_updated, id) order, as the stored JSON text (no parse, no re-serialize).
// _typeFilter queries go through the search engine's own conditions, so they mean
// exactly what the same search would; the Patient compartment comes from its index.
import { notFound } from "../../../platform/errors";
import type { FhirDefinitions } from "../definitions";
import { decodePagingToken, encodePagingToken, tokenFields } from "../paging-token";
import type { ExportQuery } from "../port";
import { Args } from "../search/args";
import { condition } from "../search/conditions";
import { joinTerms, probe } from "../search/sql";
import { parseSearch } from "../search/parse";

/** The position after which the next page starts, as a paging token like every other. */
const POSITION = { lastUpdated: tokenFields.instant, id: tokenFields.id };

/** SQL for "matches at least one of the queries", each an AND of its filters. */
function filtersSql(definitions: FhirDefinitions, type: string, typeArg: string, filters: string[], args: Args, idExpr: string): string {
  const alternatives = filters.map((query) => {
    // Strict: an unknown parameter in a filter is an error, not a silently wider export.
    const request = parseSearch(definitions, type, query, true);
    const terms = request.filters.map((f) => probe(condition(f, typeArg, args), idExpr));
    return terms.length ? `(${joinTerms(terms, "AND")})` : "1";
  });
  return `(${joinTerms(alternatives, "OR")})`;
}

/**
 * Conditions that put resource `r` of one type into the export: live at transactionTime,
 * updated after `since`, in the compartment, matching a `_typeFilter` query.
 */
function exportedWhere(definitions: FhirDefinitions, q: ExportQuery, type: string, filters: string[] | undefined, untilArg: string, args: Args, r = "r"): string[] {
  const typeArg = args.add(type);
  const where = [`${r}.org_id = ?1`, `${r}.resource_type = ${typeArg}`, `${r}.deleted = 0`, `${r}.last_updated <= ${untilArg}`];
  if (q.since) where.push(`${r}.last_updated > ${args.add(q.since)}`);
  if (q.compartment) {
    // One JSON parameter carries any number of patients (D1 binds at most 100 values).
    const patients = q.compartment.patients === "all" ? "" : ` AND c.patient_id IN (SELECT value FROM json_each(${args.add(JSON.stringify(q.compartment.patients))}))`;
    where.push(`EXISTS (SELECT 1 FROM fhir_compartment c WHERE c.org_id = ?1 AND c.resource_type = ${r}.resource_type AND c.resource_id = ${r}.id${patients})`);
  }
  if (filters?.length) where.push(filtersSql(definitions, type, typeArg, filters, args, `${r}.id`));
  return where;
}

/** `s` is the last recorded Provenance of target `x` (ties: last updated, then id), as of transactionTime. */
function latestForTarget(untilArg: string): string {
  const recorded = (alias: string) =>
    `COALESCE((SELECT d.low FROM fhir_idx_date d WHERE d.org_id = ?1 AND d.resource_type = 'Provenance' AND d.resource_id = ${alias}.id AND d.code = 'recorded' LIMIT 1), '')`;
  return `NOT EXISTS (SELECT 1 FROM fhir_idx_reference y INDEXED BY fhir_idx_reference_target_idx CROSS JOIN fhir_resources n ON n.org_id = ?1 AND n.resource_type = 'Provenance' AND n.id = y.resource_id
    WHERE y.org_id = ?1 AND y.target_type = x.target_type AND y.target_id = x.target_id AND y.resource_type = 'Provenance' AND y.code = 'target'
      AND n.deleted = 0 AND n.last_updated <= ${untilArg}
      AND (${recorded("n")}, n.last_updated, n.id) > (${recorded("s")}, s.last_updated, s.id))`;
}

/**
 * Provenance `s` targets a resource the export holds (and, for latestOnly, is its latest).
 * CROSS JOIN keeps SQLite walking from the Provenance's own targets to each target by key;
 * left free, it scans every exportable resource per Provenance.
 */
function associatedWhere(definitions: FhirDefinitions, q: ExportQuery, associated: NonNullable<ExportQuery["associated"]>, untilArg: string, args: Args): string {
  const focal = associated.focal.map((f) => `(${exportedWhere(definitions, q, f.type, f.filters, untilArg, args).join(" AND ")})`);
  const latest = associated.latestOnly ? ` AND ${latestForTarget(untilArg)}` : "";
  return `EXISTS (SELECT 1 FROM fhir_idx_reference x INDEXED BY fhir_idx_reference_owner_idx CROSS JOIN fhir_resources r ON r.org_id = ?1 AND r.resource_type = x.target_type AND r.id = x.target_id
    WHERE x.org_id = ?1 AND x.resource_type = 'Provenance' AND x.resource_id = s.id AND x.code = 'target' AND (${focal.join(" OR ") || "0"})${latest})`;
}

/** One stored resource of an export page. */
export interface ExportRow {
  id: string;
  last_updated: string;
  content: string;
}

/** Up to `q.limit + 1` rows from the query's position (the extra row says whether more follow); `definitions`: what its _typeFilter searches by. */
export async function exportRows(db: D1Database, orgId: string, definitions: FhirDefinitions, q: ExportQuery): Promise<ExportRow[]> {
  const args = new Args(orgId);
  const untilArg = args.add(q.until);
  // The page's resources are `s`: the type's own, filtered as exported, or associated Provenance.
  const where = q.associated
    ? [`s.org_id = ?1 AND s.resource_type = ${args.add(q.type)} AND s.deleted = 0 AND s.last_updated <= ${untilArg}`, associatedWhere(definitions, q, q.associated, untilArg, args)]
    : exportedWhere(definitions, q, q.type, q.filters, untilArg, args, "s");
  if (q.cursor) {
    const at = decodePagingToken(q.cursor, orgId, POSITION);
    const lu = args.add(at.lastUpdated);
    where.push(`(s.last_updated > ${lu} OR (s.last_updated = ${lu} AND s.id > ${args.add(at.id)}))`);
  }
  const sql = `SELECT s.id, s.last_updated, s.content FROM fhir_resources s WHERE ${where.join(" AND ")} ORDER BY s.last_updated, s.id LIMIT ${args.add(q.limit + 1)}`;
  const { results } = await db
    .prepare(sql)
    .bind(...args.values)
    .all<ExportRow>();
  return results;
}

/** The position after `row`, for the next page. */
export const exportCursor = (orgId: string, row: ExportRow): string => encodePagingToken(orgId, { lastUpdated: row.last_updated, id: row.id });

/** Ids of the Patients a Group lists as active members; 404 for an unknown Group. */
export async function groupPatients(db: D1Database, orgId: string, groupId: string): Promise<string[]> {
  const row = await db
    .prepare("SELECT content FROM fhir_resources WHERE org_id = ?1 AND resource_type = 'Group' AND id = ?2 AND deleted = 0")
    .bind(orgId, groupId)
    .first<{ content: string }>();
  if (!row) throw notFound(`Group/${groupId} not found`, "GROUP_NOT_FOUND");
  const group = JSON.parse(row.content) as { member?: { entity?: { reference?: string }; inactive?: boolean }[] };
  const ids = (group.member ?? [])
    .filter((m) => !m.inactive)
    .map((m) => /^Patient\/([^/]+)$/.exec(m.entity?.reference ?? "")?.[1])
    .filter((id): id is string => !!id);
  return [...new Set(ids)];
}
