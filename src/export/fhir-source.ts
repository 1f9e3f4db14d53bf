// The ExportSource over the FHIR store's tables: live current versions of one type,
// in (last_updated, id) order, as the stored JSON text (no parse, no re-serialize).
// _typeFilter queries go through the search engine's own conditions, so they mean
// exactly what the same search would; the Patient compartment comes from its index.
import type { Env } from "../env";
import { notFound } from "../errors";
import { Args, condition, probe } from "../fhir/search/conditions";
import { parseSearch } from "../fhir/search/parse";
import type { ExportPage, ExportQuery, ExportSource } from "./source";

interface Position {
  lastUpdated: string;
  id: string;
}

const encode = (p: Position) => btoa(JSON.stringify([p.lastUpdated, p.id]));
function decode(cursor: string): Position {
  const [lastUpdated, id] = JSON.parse(atob(cursor)) as [string, string];
  return { lastUpdated, id };
}

/** SQL for "matches at least one of the queries", each an AND of its filters. */
function filtersSql(type: string, typeArg: string, filters: string[], args: Args): string {
  const alternatives = filters.map((query) => {
    // Strict: an unknown parameter in a filter is an error, not a silently wider export.
    const request = parseSearch(type, query, true);
    const terms = request.filters.map((f) => probe(condition(f, typeArg, args)));
    return terms.length ? `(${terms.join(" AND ")})` : "1";
  });
  return `(${alternatives.join(" OR ")})`;
}

export function exportSourceFor(env: Env, orgId: string): ExportSource {
  return {
    async page(q: ExportQuery): Promise<ExportPage> {
      const args = new Args(orgId);
      const typeArg = args.add(q.type);
      const where = ["r.org_id = ?1", `r.resource_type = ${typeArg}`, "r.deleted = 0", `r.last_updated <= ${args.add(q.until)}`];
      if (q.since) where.push(`r.last_updated > ${args.add(q.since)}`);
      if (q.cursor) {
        const at = decode(q.cursor);
        const lu = args.add(at.lastUpdated);
        where.push(`(r.last_updated > ${lu} OR (r.last_updated = ${lu} AND r.id > ${args.add(at.id)}))`);
      }
      if (q.compartment) {
        // One JSON parameter carries any number of patients (D1 binds at most 100 values).
        const patients = q.compartment.patients === "all" ? "" : ` AND c.patient_id IN (SELECT value FROM json_each(${args.add(JSON.stringify(q.compartment.patients))}))`;
        where.push(`EXISTS (SELECT 1 FROM fhir_compartment c WHERE c.org_id = ?1 AND c.resource_type = r.resource_type AND c.resource_id = r.id${patients})`);
      }
      if (q.filters?.length) where.push(filtersSql(q.type, typeArg, q.filters, args));
      const sql = `SELECT r.id, r.last_updated, r.content FROM fhir_resources r WHERE ${where.join(" AND ")} ORDER BY r.last_updated, r.id LIMIT ${args.add(q.limit + 1)}`;
      const { results } = await env.DB.prepare(sql)
        .bind(...args.values)
        .all<{ id: string; last_updated: string; content: string }>();
      const rows = results.slice(0, q.limit);
      const last = rows.at(-1);
      return {
        lines: rows.map((r) => r.content),
        ...(results.length > q.limit && last ? { cursor: encode({ lastUpdated: last.last_updated, id: last.id }) } : {}),
      };
    },

    async groupPatients(groupId: string): Promise<string[]> {
      const row = await env.DB.prepare("SELECT content FROM fhir_resources WHERE org_id = ?1 AND resource_type = 'Group' AND id = ?2 AND deleted = 0")
        .bind(orgId, groupId)
        .first<{ content: string }>();
      if (!row) throw notFound(`Group/${groupId} not found`, "GROUP_NOT_FOUND");
      const group = JSON.parse(row.content) as { member?: { entity?: { reference?: string }; inactive?: boolean }[] };
      const ids = (group.member ?? [])
        .filter((m) => !m.inactive)
        .map((m) => /^Patient\/([^/]+)$/.exec(m.entity?.reference ?? "")?.[1])
        .filter((id): id is string => !!id);
      return [...new Set(ids)];
    },
  };
}
