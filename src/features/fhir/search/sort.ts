// SQL expressions giving each matched resource its sort value for a _sort key (a lookup in the
// owner index per matched row), and the keyset condition that resumes after (or before) a cursor.
import type { Args } from "./args";
import type { SortKey } from "./parse";
import { lookupTable } from "../../../platform/object-keys";

const INDEX_SORT = lookupTable<{ table: string; asc: string; desc: string; empty: string }>({
  string: { table: "fhir_idx_string", asc: "MIN(value_norm)", desc: "MAX(value_norm)", empty: "''" },
  token: { table: "fhir_idx_token", asc: "MIN(value)", desc: "MAX(value)", empty: "''" },
  reference: { table: "fhir_idx_reference", asc: "MIN(url)", desc: "MAX(url)", empty: "''" },
  uri: { table: "fhir_idx_uri", asc: "MIN(value)", desc: "MAX(value)", empty: "''" },
  date: { table: "fhir_idx_date", asc: "MIN(low)", desc: "MAX(high)", empty: "''" },
  number: { table: "fhir_idx_number", asc: "MIN(value)", desc: "MAX(value)", empty: "-1e308" },
  quantity: { table: "fhir_idx_number", asc: "MIN(value)", desc: "MAX(value)", empty: "-1e308" },
});

export function sortExpression(key: SortKey, args: Args): string {
  if (key.def.code === "_id") return "r.id";
  if (key.def.code === "_lastUpdated") return "r.last_updated";
  const s = INDEX_SORT[key.def.type]!;
  return `COALESCE((SELECT ${key.desc ? s.desc : s.asc} FROM ${s.table} x INDEXED BY ${s.table}_owner_idx WHERE x.org_id = ?1 AND x.resource_type = r.resource_type AND x.resource_id = r.id AND x.code = ${args.add(key.def.code)}), ${s.empty})`;
}

/**
 * Rows strictly after the position (keys, id) in the order given by `desc` flags (the id is the
 * final, ascending tie-breaker); `backwards` asks for rows strictly before it instead.
 */
export function keysetCondition(exprs: string[], desc: boolean[], keys: unknown[], id: string, backwards: boolean, args: Args, idExpr = "r.id"): string {
  const all = [...exprs, idExpr];
  const dirs = [...desc, false];
  const vals = [...keys, id];
  const ors: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const eqs = all.slice(0, i).map((e, j) => `${e} = ${args.add(vals[j])}`);
    const after = dirs[i] !== backwards;
    eqs.push(`${all[i]} ${after ? "<" : ">"} ${args.add(vals[i])}`);
    ors.push(`(${eqs.join(" AND ")})`);
  }
  return `(${ors.join(" OR ")})`;
}
