// Translates parsed search filters into SQL conditions over the index tables: the ids each
// filter selects, as a subquery value (sql.ts), with its selectivity and, for a filter that reads
// more index rows than it matches, the window Args.bounded cuts it on. Every subquery is pinned
// to the tenant through ?1 (org_id), which also leads every index it uses.
import { badRequest } from "../../../platform/errors";
import { lookupTable } from "../../../platform/object-keys";
import type { SearchParamDef } from "../definitions";
import { parseReference } from "../index-extract";
import type { Args } from "./args";
import type { Filter, ScopeFilterBranch } from "./parse";
import { type IdCondition, type Subquery, joinTerms, probe, resourcesOf } from "./sql";
import { type Prefix, compositeClause, dateClause, quantityClause, referenceClause, splitPrefix, stringClause, tokenClause, uriClause } from "./value-clauses";

const TABLE = lookupTable<string>({
  string: "fhir_idx_string",
  token: "fhir_idx_token",
  reference: "fhir_idx_reference",
  date: "fhir_idx_date",
  number: "fhir_idx_number",
  quantity: "fhir_idx_number",
  uri: "fhir_idx_uri",
  composite: "fhir_idx_composite",
});

/**
 * The value index a driving (non-correlated) subquery must read `table` through. Without
 * statistics SQLite prefers scanning the covering owner index over seeking the value index,
 * which reads every row of the type; dates pick the index of the column their comparison leads with.
 */
function valueIndex(table: string, datePrefix?: Prefix): { from: string; indexedBy: string } {
  if (table !== "fhir_idx_date") return { from: table, indexedBy: `${table}_value_idx` };
  const high = datePrefix === "gt" || datePrefix === "ge" || datePrefix === "eb";
  return { from: table, indexedBy: `fhir_idx_date_${high ? "high" : "low"}_idx` };
}

const RANK = lookupTable<number>({ reference: 1, token: 2, string: 3, uri: 3, composite: 3, quantity: 4, number: 4, date: 4 });

/** Ids of resources of `typeExpr` (a bound type or a correlated column) that satisfy `filter`. */
export function condition(filter: Filter, typeExpr: string, args: Args): IdCondition {
  switch (filter.kind) {
    case "missing": {
      const ids = { select: "resource_id", ...valueIndex(TABLE[filter.def.type]!), where: `org_id = ?1 AND resource_type = ${typeExpr} AND code = ${args.add(filter.def.code)}` };
      return { ids, negate: filter.missing, rank: 9 };
    }
    case "chain": {
      const branches = filter.inner.map(({ type, filter: inner }) => {
        const t = args.add(type);
        return `(target_type = ${t} AND target_id IN (${idsOf(inner, t, args)}))`;
      });
      return {
        ids: { select: "resource_id", ...valueIndex("fhir_idx_reference"), where: `org_id = ?1 AND resource_type = ${typeExpr} AND code = ${args.add(filter.def.code)} AND (${joinTerms(branches, "OR")})` },
        negate: false,
        rank: 2,
      };
    }
    case "has": {
      const source = args.add(filter.sourceType);
      return {
        // Seeks the owner index once per id of the inner set.
        ids: {
          select: "target_id",
          from: "fhir_idx_reference",
          indexedBy: "fhir_idx_reference_owner_idx",
          where: `org_id = ?1 AND resource_type = ${source} AND resource_id IN (${idsOf(filter.inner, source, args)}) AND code = ${args.add(filter.refCode)} AND target_type = ${typeExpr}`,
        },
        negate: false,
        rank: 3,
      };
    }
    case "param":
      return paramCondition(filter.def, filter.modifier, filter.values, typeExpr, args);
    case "scope":
      return scopeCondition(filter.branches, typeExpr, args);
  }
}

/** The patients' compartments, from the compartment index (fhir_compartment; a Patient is in its own). */
const inCompartments = (patients: readonly string[], args: Args) => `patient_id IN (SELECT value FROM json_each(${args.add(JSON.stringify(patients))}))`;

/**
 * An access policy's search scope (access-policy.ts): the ids of `typeExpr` some branch admits.
 * One branch that only names patients reads the compartment index by patient (it may drive the
 * search: one patient's Observations, in id order); otherwise each candidate is probed, branch by
 * branch (its type, its filters, its compartments), and the condition never drives.
 */
function scopeCondition(branches: readonly ScopeFilterBranch[], typeExpr: string, args: Args): IdCondition {
  const only = branches.length === 1 ? branches[0]! : undefined;
  if (only?.patients && !only.filters.length) {
    const typed = only.type ? ` AND resource_type = ${args.add(only.type)}` : "";
    return {
      ids: { select: "resource_id", from: "fhir_compartment", indexedBy: "sqlite_autoindex_fhir_compartment_1", where: `org_id = ?1 AND ${inCompartments(only.patients, args)} AND resource_type = ${typeExpr}${typed}` },
      negate: false,
      rank: 1,
    };
  }
  const terms = branches.map((b) => {
    const parts: string[] = [];
    const type = b.type ? args.add(b.type) : "p.resource_type";
    if (b.type) parts.push(`p.resource_type = ${type}`);
    for (const f of b.filters) parts.push(probe(condition(f, type, args), "p.id"));
    if (b.patients) {
      parts.push(`EXISTS (SELECT 1 FROM fhir_compartment c INDEXED BY fhir_compartment_owner_idx WHERE c.org_id = ?1 AND c.resource_type = p.resource_type AND c.resource_id = p.id AND c.${inCompartments(b.patients, args)})`);
    }
    return parts.length ? `(${joinTerms(parts, "AND")})` : "1";
  });
  return {
    ids: { select: "p.id", from: "fhir_resources p", where: `p.org_id = ?1 AND p.resource_type = ${typeExpr} AND p.deleted = 0 AND (${terms.length ? joinTerms(terms, "OR") : "0"})` },
    negate: false,
    rank: 9,
    probeOnly: true,
  };
}

/**
 * The ids of `type` matching the filter, negations included (for chains and _has), as a bounded
 * set: a broad inner filter is refused (Args.checkSql) instead of materialized whole.
 */
function idsOf(filter: Filter, typeExpr: string, args: Args): string {
  const c = condition(filter, typeExpr, args);
  if (!c.negate) return args.bounded(c);
  // A negation reads the type's resources, probing each.
  const resources = resourcesOf(typeExpr);
  return args.bounded({ ids: resources, negate: false, rank: 9, window: { rows: resources, pred: probe(c, "w.id") } });
}

function paramCondition(def: SearchParamDef, modifier: string | undefined, values: string[], typeExpr: string, args: Args): IdCondition {
  if (def.code === "_id") {
    return { ids: { select: "value", from: `json_each(${args.add(JSON.stringify(values))})`, where: "1" }, negate: modifier === "not", rank: 0 };
  }
  if (def.code === "_lastUpdated") {
    const resources = resourcesOf(typeExpr);
    const pred = `(${joinTerms(values.map((v) => dateClause(v, "last_updated", "last_updated", args)), "OR")})`;
    return {
      ids: { ...resources, where: `${resources.where} AND ${pred}` },
      negate: false,
      rank: 8,
      ...(values.some((v) => readsBeyondMatches("date", undefined, v)) ? { window: { rows: { ...resources, select: "id, last_updated" }, pred } } : {}),
    };
  }
  let table = TABLE[def.type]!;
  let code = def.code;
  let negate = false;
  let clause: (v: string) => string;
  /** A composite's first components (tokens), which its value index seeks. */
  const firsts: string[] = [];
  switch (def.type) {
    case "string":
      clause = (v) => stringClause(v, modifier, args);
      break;
    case "token":
      if (modifier === "text") {
        table = TABLE.string!;
        code = `${def.code}:text`;
        clause = (v) => stringClause(v, undefined, args);
      } else if (modifier === "of-type") {
        code = `${def.code}:of-type`;
        clause = (v) => {
          const [system = "", typeCode = "", value = ""] = v.split("|");
          return `(system = ${args.add(system)} AND value = ${args.add(`${typeCode}|${value}`)})`;
        };
      } else {
        negate = modifier === "not";
        clause = (v) => tokenClause(v, args);
      }
      break;
    case "reference":
      if (modifier === "identifier") {
        table = TABLE.token!;
        code = `${def.code}:identifier`;
        clause = (v) => tokenClause(v, args);
      } else clause = (v) => referenceClause(v, modifier, def, args);
      break;
    case "date":
      clause = (v) => dateClause(v, "low", "high", args);
      break;
    case "number":
    case "quantity":
      clause = (v) => quantityClause(v, args);
      break;
    case "uri":
      clause = (v) => uriClause(v, modifier, args);
      break;
    case "composite":
      clause = (v) => {
        const { first, second } = compositeClause(v, def, args);
        firsts.push(first);
        return `(${first} AND ${second})`;
      };
      break;
    default:
      throw badRequest(`Search parameter ${def.code} cannot be searched`);
  }
  const ors = values.map(clause);
  // The code's rows (its values' clauses added their arguments first).
  const rows: Subquery = { select: "*", ...valueIndex(table, def.type === "date" ? splitPrefix(values[0] ?? "").prefix : undefined), where: `org_id = ?1 AND resource_type = ${typeExpr} AND code = ${args.add(code)}` };
  const pred = `(${joinTerms(ors, "OR")})`;
  return {
    ids: { ...rows, select: "resource_id", where: `${rows.where} AND ${pred}` },
    negate,
    rank: modifier === "contains" || modifier === "text" || modifier === "above" ? 7 : (RANK[def.type] ?? 5),
    ...(values.some((v) => readsBeyondMatches(def.type, modifier, v)) ? { window: { rows, pred } } : {}),
    // A composite reads every row of its first components, then tests the second: cut on those.
    ...(firsts.length ? { window: { rows: { ...rows, where: `${rows.where} AND (${joinTerms(firsts, "OR")})` }, pred } } : {}),
  };
}

/**
 * Whether a value's clause reads index rows it does not match: the value index cannot seek it
 * (a substring, `ne`, a token by system alone, a reference by URL alone) or seeks a far wider range
 * (date `ap`: every row starting before its end).
 */
function readsBeyondMatches(type: string, modifier: string | undefined, v: string): boolean {
  if (modifier === "contains" || modifier === "text" || modifier === "above") return true;
  switch (type) {
    case "date":
      return ["ne", "ap"].includes(splitPrefix(v).prefix);
    case "number":
    case "quantity":
      return splitPrefix(v).prefix === "ne";
    case "token":
      return modifier !== "of-type" && v.endsWith("|") && v.length > 1;
    case "reference":
      return modifier !== "identifier" && (v.includes(":") || (v.includes("/") && !parseReference(v)));
    default:
      return false;
  }
}
