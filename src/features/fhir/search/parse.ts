// Parses a FHIR search query string into a typed request: filters (with chains and _has),
// result parameters, and warnings for what is unknown or unsupported.
import { badRequest } from "../../../platform/errors";
import { type FhirDefinitions, type SearchParamDef, isResourceType } from "../definitions";
import { lookupTable } from "../../../platform/object-keys";

export type Filter =
  | { kind: "param"; def: SearchParamDef; modifier?: string; values: string[] }
  | { kind: "missing"; def: SearchParamDef; missing: boolean }
  | { kind: "chain"; def: SearchParamDef; inner: { type: string; filter: Filter }[] }
  | { kind: "has"; sourceType: string; refCode: string; inner: Filter }
  /** The store's access policy's condition (access-policy.ts, SearchScope): any branch admits a resource. */
  | { kind: "scope"; branches: ScopeFilterBranch[] };

/** One way a resource meets an access policy's search scope: its type, filters and patient compartments (each when given). */
export interface ScopeFilterBranch {
  type?: string;
  filters: Filter[];
  patients?: readonly string[];
}

export interface IncludeSpec {
  sourceType: string;
  /** "*" for every reference parameter of the source type. */
  param: string;
  targetType?: string;
  iterate: boolean;
}

export interface SortKey {
  def: SearchParamDef;
  desc: boolean;
}

export interface SearchRequest {
  /** Resource types searched (one for a type-level search). */
  types: string[];
  filters: Filter[];
  sort: SortKey[];
  count: number;
  cursor?: string;
  total: "none" | "estimate" | "accurate";
  summary?: "true" | "false" | "count" | "data" | "text";
  elements?: string[];
  include: IncludeSpec[];
  revinclude: IncludeSpec[];
  warnings: string[];
}

export const DEFAULT_COUNT = 20;
export const MAX_COUNT = 1000;
export const MAX_VALUES = 300;

export const MODIFIERS = lookupTable<readonly string[]>({
  string: ["exact", "contains", "missing"],
  token: ["not", "text", "of-type", "missing"],
  reference: ["identifier", "missing"],
  date: ["missing"],
  number: ["missing"],
  quantity: ["missing"],
  uri: ["below", "above", "missing"],
  composite: ["missing"],
});

/** _id and _lastUpdated are searched on the resource row, so they exist for every type. */
const COLUMN_DEFS = lookupTable<SearchParamDef>({
  _id: { code: "_id", type: "token", expression: "" },
  _lastUpdated: { code: "_lastUpdated", type: "date", expression: "" },
});

/** A `_count` (search and history): a non-negative integer, capped at MAX_COUNT; absent: the default. */
export function parseCount(value: string | null): number {
  if (value === null) return DEFAULT_COUNT;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw badRequest(`_count must be a non-negative integer, got ${value}`);
  return Math.min(n, MAX_COUNT);
}

export function paramDef(definitions: FhirDefinitions, type: string, code: string): SearchParamDef | undefined {
  return COLUMN_DEFS[code] ?? definitions.searchParam(type, code);
}

/** Splits a parameter value on unescaped commas (FHIR's OR), unescaping "\,". */
export function splitOr(value: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === "\\" && i + 1 < value.length) {
      cur += value[++i];
    } else if (ch === ",") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

class UnknownParam extends Error {}

function parseFilter(definitions: FhirDefinitions, type: string, key: string, value: string): Filter {
  if (key.startsWith("_has:")) {
    // _has:Source:refParam:rest
    const [, sourceType, refCode, ...rest] = key.split(":");
    if (!sourceType || !refCode || rest.length === 0 || !isResourceType(sourceType)) throw new UnknownParam(`Invalid _has parameter ${key}`);
    const ref = definitions.searchParam(sourceType, refCode);
    if (ref?.type !== "reference") throw new UnknownParam(`${sourceType}.${refCode} is not a reference parameter`);
    return { kind: "has", sourceType, refCode, inner: parseFilter(definitions, sourceType, rest.join(":"), value) };
  }
  const dot = key.indexOf(".");
  if (dot > 0) {
    const [name, typeModifier] = key.slice(0, dot).split(":") as [string, string | undefined];
    const def = definitions.searchParam(type, name);
    if (def?.type !== "reference") throw new UnknownParam(`Cannot chain through ${type}.${name}`);
    const targets = typeModifier ? [typeModifier] : (def.targets ?? []);
    const rest = key.slice(dot + 1);
    const innerName = rest.split(/[.:]/)[0]!;
    const inner = targets
      .filter((t) => isResourceType(t) && (paramDef(definitions, t, innerName) || innerName === "_has"))
      .map((t) => ({ type: t, filter: parseFilter(definitions, t, rest, value) }));
    if (inner.length === 0) throw new UnknownParam(`No target of ${type}.${name} has the parameter ${innerName}`);
    return { kind: "chain", def, inner };
  }
  const [name, modifier] = key.split(":") as [string, string | undefined];
  const def = paramDef(definitions, type, name);
  if (!def || def.type === "special") throw new UnknownParam(`Unknown search parameter ${name} for ${type}`);
  if (modifier === "missing") {
    if (value !== "true" && value !== "false") throw badRequest(`:missing takes true or false, got ${value}`);
    return { kind: "missing", def, missing: value === "true" };
  }
  if (modifier) {
    const typeModifier = def.type === "reference" && isResourceType(modifier);
    if (!typeModifier && !MODIFIERS[def.type]?.includes(modifier)) {
      throw new UnknownParam(`Unsupported modifier :${modifier} on ${name}`);
    }
  }
  return { kind: "param", def, modifier, values: splitOr(value) };
}

function parseInclude(definitions: FhirDefinitions, value: string, iterate: boolean): IncludeSpec {
  if (value === "*") return { sourceType: "*", param: "*", iterate };
  const [sourceType, param, targetType] = value.split(":");
  if (!sourceType || !param || !isResourceType(sourceType)) throw badRequest(`Invalid include ${value}`);
  if (param !== "*" && definitions.searchParam(sourceType, param)?.type !== "reference") {
    throw badRequest(`${sourceType}:${param} is not a reference search parameter`);
  }
  return { sourceType, param, targetType, iterate };
}

const RESULT_PARAMS = new Set(["_count", "_sort", "_include", "_revinclude", "_summary", "_elements", "_total", "_format", "_pretty", "_cursor", "_type"]);

/**
 * Parses `query` for a search over `type` (undefined: system-level, restricted by _type).
 * Under strict handling an unknown parameter is an error; otherwise a warning.
 */
/**
 * Longest search parameter value: far beyond any URL (POST _search bodies are the only way to
 * send more) and far below the 2 MB a database value may take.
 */
export const MAX_SEARCH_VALUE_CHARS = 64 * 1024;

/** Single-valued result parameters that add nothing to the statement: not counted against MAX_VALUES (a guide may add `_total`). */
const UNBOUND_PARAMS = new Set(["_total", "_count", "_summary", "_format", "_pretty"]);

export function parseSearch(definitions: FhirDefinitions, type: string | undefined, query: string | URLSearchParams, strict = false): SearchRequest {
  const params = typeof query === "string" ? new URLSearchParams(query) : query;
  const values = [...params].reduce((n, [k, v]) => (UNBOUND_PARAMS.has(k) ? n : n + v.split(",").length), 0);
  // Each value becomes a clause or two of one SQL statement, which D1 caps at 100 KB.
  if (values > MAX_VALUES) throw badRequest(`A search may hold at most ${MAX_VALUES} values (parameters and comma-separated alternatives), got ${values}`);
  const typeParam = params.get("_type");
  const types = type ? [type] : typeParam ? typeParam.split(",").filter(Boolean) : [];
  for (const t of types) if (!isResourceType(t)) throw badRequest(`Unknown resource type ${t}`);
  const filterType = types.length === 1 ? types[0]! : "Resource";
  const req: SearchRequest = { types, filters: [], sort: [], count: DEFAULT_COUNT, total: "none", include: [], revinclude: [], warnings: [] };
  const warn = (message: string) => {
    if (strict) throw badRequest(message);
    req.warnings.push(message);
  };
  for (const [key, value] of params) {
    if (value.length > MAX_SEARCH_VALUE_CHARS) throw badRequest(`The value of ${key.slice(0, 100)} is ${value.length} characters; the limit is ${MAX_SEARCH_VALUE_CHARS}`);
    const base = key.split(":")[0]!;
    if (RESULT_PARAMS.has(base)) {
      applyResultParam(definitions, req, filterType, key, value, warn);
      continue;
    }
    try {
      req.filters.push(parseFilter(definitions, filterType === "Resource" ? "Patient" : filterType, key, value));
      if (filterType === "Resource" && !["_id", "_lastUpdated", "_tag", "_profile", "_security", "_source"].includes(base)) {
        req.filters.pop();
        warn(`Parameter ${key} needs a single _type for a system-level search`);
      }
    } catch (e) {
      if (e instanceof UnknownParam) warn(e.message);
      else throw e;
    }
  }
  return req;
}

function applyResultParam(definitions: FhirDefinitions, req: SearchRequest, type: string, key: string, value: string, warn: (m: string) => void) {
  const [name, modifier] = key.split(":");
  switch (name) {
    case "_count":
      req.count = parseCount(value);
      break;
    case "_cursor":
      req.cursor = value;
      break;
    case "_sort":
      for (const part of value.split(",").filter(Boolean)) {
        const desc = part.startsWith("-");
        const code = desc ? part.slice(1) : part;
        const def = paramDef(definitions, type === "Resource" ? "Patient" : type, code);
        if (!def || def.type === "composite" || def.type === "special") warn(`Cannot sort by ${code}`);
        else req.sort.push({ def, desc });
      }
      break;
    case "_include":
    case "_revinclude": {
      const spec = parseInclude(definitions, value, modifier === "iterate");
      (name === "_include" ? req.include : req.revinclude).push(spec);
      break;
    }
    case "_summary":
      if (!["true", "false", "count", "data", "text"].includes(value)) throw badRequest(`Invalid _summary ${value}`);
      req.summary = value as SearchRequest["summary"];
      if (value === "count") req.total = "accurate";
      break;
    case "_elements":
      req.elements = value.split(",").map((s) => s.trim()).filter(Boolean);
      break;
    case "_total":
      if (!["none", "estimate", "accurate"].includes(value)) throw badRequest(`Invalid _total ${value}`);
      req.total = value as SearchRequest["total"];
      break;
  }
}

/** All reference parameters of a type (for _include=Type:*). */
export const referenceParams = (definitions: FhirDefinitions, type: string) => definitions.searchParamsOf(type).filter((p) => p.type === "reference");
