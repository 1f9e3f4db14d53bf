// Turns a resource into search index rows, one set per parameter kind, by evaluating every
// search parameter of its type (official FHIRPath expressions) at write time.
import { type FhirDefinitions, R4_DEFINITIONS, type SearchParamComponent, type SearchParamDef, patientCompartmentParams } from "./definitions";
import { evaluate } from "./fhirpath";
import type { Resource } from "./port";
import { MAX_INSTANT, MIN_INSTANT, dateRange, foldString } from "./values";

export interface StringRow { code: string; value: string; norm: string }
export interface TokenRow { code: string; system: string; value: string }
export interface ReferenceRow { code: string; targetType: string; targetId: string; url: string }
export interface DateRow { code: string; low: string; high: string }
export interface NumberRow { code: string; value: number; system: string; unit: string }
export interface UriRow { code: string; value: string }
export interface CompositeRow {
  code: string;
  system1: string;
  value1: string;
  system2: string;
  value2: string;
  num: number | null;
  low: string | null;
  high: string | null;
}

export interface IndexRows {
  string: StringRow[];
  token: TokenRow[];
  reference: ReferenceRow[];
  date: DateRow[];
  number: NumberRow[];
  uri: UriRow[];
  composite: CompositeRow[];
  /** Patient ids whose compartment holds the resource. */
  patients: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Parameters indexed from the resource row itself rather than from index tables. */
export const COLUMN_PARAMS = new Set(["_id", "_lastUpdated"]);

// Leaves of complex strings (HumanName, Address) that a string search matches on.
const STRING_LEAVES = ["text", "family", "given", "prefix", "suffix", "line", "city", "district", "state", "postalCode", "country", "value", "display", "name"];

export function stringValues(v: unknown): string[] {
  if (typeof v === "string") return v ? [v] : [];
  if (Array.isArray(v)) return v.flatMap(stringValues);
  if (!isObj(v)) return [];
  return STRING_LEAVES.flatMap((k) => stringValues(v[k]));
}

/** Tokens as [system, value] pairs; `text` collects CodeableConcept.text and Coding.display for :text. */
export function tokenValues(v: unknown): { tokens: [string, string][]; text: string[]; ofType: [string, string][] } {
  const out = { tokens: [] as [string, string][], text: [] as string[], ofType: [] as [string, string][] };
  const coding = (c: unknown) => {
    if (!isObj(c)) return;
    const code = str(c.code);
    if (code) out.tokens.push([str(c.system) ?? "", code]);
    const display = str(c.display);
    if (display) out.text.push(display);
  };
  if (typeof v === "boolean" || typeof v === "number") out.tokens.push(["", String(v)]);
  else if (typeof v === "string") {
    if (v) out.tokens.push(["", v]);
  } else if (isObj(v)) {
    if (Array.isArray(v.coding) || (str(v.text) && !("value" in v) && !("code" in v))) {
      for (const c of (v.coding as unknown[]) ?? []) coding(c);
      const text = str(v.text);
      if (text) out.text.push(text);
    } else if ("code" in v) coding(v);
    else if ("value" in v) {
      // Identifier or ContactPoint.
      const value = str(v.value) ?? (typeof v.value === "number" ? String(v.value) : undefined);
      if (value) out.tokens.push([str(v.system) ?? "", value]);
      if (isObj(v.type)) {
        const typeText = str(v.type.text);
        if (typeText) out.text.push(typeText);
        for (const c of (v.type.coding as unknown[]) ?? []) {
          if (isObj(c) && str(c.code) && value) out.ofType.push([str(c.system) ?? "", `${c.code}|${value}`]);
        }
      }
    }
  }
  return out;
}

/** A reference string split into type and id ("Patient/1", ".../Patient/1/_history/2"); contained refs give undefined. */
export function parseReference(ref: string): { type: string; id: string } | undefined {
  if (ref.startsWith("#") || ref.startsWith("urn:")) return undefined;
  const parts = ref.split("?")[0]!.split("/");
  const h = parts.lastIndexOf("_history");
  const segs = h >= 2 ? parts.slice(0, h) : parts;
  const id = segs[segs.length - 1];
  const type = segs[segs.length - 2];
  if (!id || !type || !/^[A-Z][A-Za-z]+$/.test(type)) return undefined;
  return { type, id };
}

export function dateValues(v: unknown): { low: string; high: string }[] {
  if (typeof v === "string") {
    const r = dateRange(v);
    return r ? [r] : [];
  }
  if (!isObj(v)) return [];
  if ("start" in v || "end" in v) {
    const start = str(v.start) ? dateRange(v.start as string) : undefined;
    const end = str(v.end) ? dateRange(v.end as string) : undefined;
    if (!start && !end) return [];
    return [{ low: start?.low ?? MIN_INSTANT, high: end?.high ?? MAX_INSTANT }];
  }
  // Timing: its events, or its bounds.
  const events = Array.isArray(v.event) ? v.event.flatMap(dateValues) : [];
  const bounds = isObj(v.repeat) ? dateValues(v.repeat.boundsPeriod) : [];
  return [...events, ...bounds];
}

export function numberValues(v: unknown): { value: number; system: string; unit: string }[] {
  if (typeof v === "number") return [{ value: v, system: "", unit: "" }];
  if (!isObj(v)) return [];
  if (typeof v.value === "number") {
    return [{ value: v.value, system: str(v.system) ?? "", unit: str(v.code) ?? str(v.unit) ?? "" }];
  }
  // Range: both ends are indexed.
  return [...numberValues(v.low), ...numberValues(v.high)];
}

const emptyRows = (): IndexRows => ({ string: [], token: [], reference: [], date: [], number: [], uri: [], composite: [], patients: [] });

function evalSafe(expression: string, input: unknown, base?: string): unknown[] {
  try {
    return evaluate(expression, input, base);
  } catch {
    // An expression the evaluator cannot handle indexes nothing rather than failing the write.
    return [];
  }
}

/** True when the resource has one of the guard's roots (valueQuantity counts for value). */
function hasRoot(keys: string[], guard: string[] | undefined): boolean {
  return !guard || guard.some((g) => keys.some((k) => k === g || (k.startsWith(g) && k.charCodeAt(g.length) < 97)));
}

const OPERATORS = new Set(["and", "or", "xor", "implies", "is", "as", "div", "mod", "in", "contains", "true", "false"]);
const pathRootsCache = new Map<string, string[] | null>();

/**
 * The root elements an unguarded expression reads (`Patient.deceased.exists() and Patient.deceased
 * != false` reads only `deceased`), when it reads the resource through `Type.<element>` paths only:
 * no bare element or function at a term's start (which would read the root itself), no variable,
 * no string literal to mistake for a name. Otherwise null: the expression is evaluated every time.
 */
function pathRoots(type: string, expression: string): string[] | null {
  const key = `${type}\u0000${expression}`;
  let roots = pathRootsCache.get(key);
  if (roots === undefined) {
    roots = /[%$'`]/.test(expression) ? null : [];
    for (const m of roots ? expression.matchAll(/(\.?)([A-Za-z_]\w*)/g) : []) {
      const [, dot, word] = m;
      if (dot) continue;
      if (word === type && expression[m.index + word!.length] === ".") roots!.push(/^\.(\w+)/.exec(expression.slice(m.index + word!.length))![1]!);
      else if (!OPERATORS.has(word!)) {
        roots = null;
        break;
      }
    }
    pathRootsCache.set(key, roots);
  }
  return roots;
}

const absentValuesCache = new Map<string, unknown[]>();

/** What an expression answers for a resource of its type that has none of its roots: the same for every such resource. */
function absentValues(type: string, expression: string): unknown[] {
  const key = `${type}\u0000${expression}`;
  let values = absentValuesCache.get(key);
  if (!values) {
    values = evalSafe(expression, { resourceType: type });
    absentValuesCache.set(key, values);
  }
  return values;
}

function addParam(rows: IndexRows, p: SearchParamDef, resource: Resource, keys: string[]) {
  // Most parameters of a type have nothing to index in a given resource; skipping them before
  // FHIRPath evaluation is most of the indexing cost saved.
  if (!hasRoot(keys, p.guard)) return;
  if (p.type === "composite") return addComposite(rows, p, resource);
  if (!p.expression || COLUMN_PARAMS.has(p.code)) return;
  // An unguarded parameter still indexes a value when its roots are absent (deceased: false), the
  // same value for every such resource: evaluated once (the general evaluator cost ~70 µs a Patient).
  const roots = p.guard ? null : pathRoots(resource.resourceType, p.expression);
  const values = roots && !hasRoot(keys, roots) ? absentValues(resource.resourceType, p.expression) : evalSafe(p.expression, resource);
  for (const v of values) addValue(rows, p.code, p.type, v);
}

function addValue(rows: IndexRows, code: string, type: string, v: unknown) {
  switch (type) {
    case "string":
      for (const s of stringValues(v)) rows.string.push({ code, value: s, norm: foldString(s) });
      break;
    case "token": {
      const t = tokenValues(v);
      for (const [system, value] of t.tokens) rows.token.push({ code, system, value });
      for (const s of t.text) rows.string.push({ code: `${code}:text`, value: s, norm: foldString(s) });
      for (const [system, value] of t.ofType) rows.token.push({ code: `${code}:of-type`, system, value });
      break;
    }
    case "reference": {
      if (typeof v === "string") rows.reference.push({ code, targetType: "", targetId: "", url: v });
      else if (isObj(v)) {
        const ref = str(v.reference);
        const parsed = ref ? parseReference(ref) : undefined;
        if (ref) rows.reference.push({ code, targetType: parsed?.type ?? "", targetId: parsed?.id ?? "", url: ref });
        if (isObj(v.identifier)) {
          for (const [system, value] of tokenValues(v.identifier).tokens) rows.token.push({ code: `${code}:identifier`, system, value });
        }
      }
      break;
    }
    case "date":
      for (const r of dateValues(v)) rows.date.push({ code, ...r });
      break;
    case "number":
    case "quantity":
      for (const n of numberValues(v)) rows.number.push({ code, ...n });
      break;
    case "uri":
      if (typeof v === "string" && v) rows.uri.push({ code, value: v });
      break;
  }
}

function addComposite(rows: IndexRows, p: SearchParamDef, resource: Resource) {
  const [first, second] = p.components ?? [];
  if (!first || !second || !p.expression) return;
  for (const base of evalSafe(p.expression, resource)) {
    for (const v1 of evalSafe(first.expression, base, p.expression)) {
      for (const [system1, value1] of tokenValues(v1).tokens) {
        for (const v2 of evalSafe(second.expression, base, p.expression)) {
          for (const c of compositeSecond(second, v2)) rows.composite.push({ code: p.code, system1, value1, ...c });
        }
      }
    }
  }
}

function compositeSecond(c: SearchParamComponent, v: unknown): Omit<CompositeRow, "code" | "system1" | "value1">[] {
  const none = { num: null, low: null, high: null };
  switch (c.type) {
    case "token":
      return tokenValues(v).tokens.map(([system2, value2]) => ({ system2, value2, ...none }));
    case "quantity":
    case "number":
      return numberValues(v).map((n) => ({ system2: n.system, value2: n.unit, ...none, num: n.value }));
    case "date":
      return dateValues(v).map((d) => ({ system2: "", value2: "", ...none, low: d.low, high: d.high }));
    case "string":
      return stringValues(v).map((s) => ({ system2: "", value2: foldString(s), ...none }));
    default:
      return [];
  }
}

/** All index rows of a resource (which must carry its final id and meta), by the parameters of `definitions`. */
export function extractIndex(resource: Resource, definitions: FhirDefinitions): IndexRows {
  const rows = emptyRows();
  const keys = Object.keys(resource);
  for (const p of definitions.searchParamsOf(resource.resourceType)) addParam(rows, p, resource, keys);
  rows.patients = compartmentPatients(resource, rows.reference);
  return rows;
}

/**
 * The patients whose compartment holds the resource, evaluating only the compartment's parameters
 * (what access policies need per result). The compartment is R4's, by R4's parameter codes, which
 * no guide may redefine: R4's definitions answer it for every store.
 */
export function patientCompartmentOf(resource: Resource): string[] {
  const rows = emptyRows();
  const keys = Object.keys(resource);
  const params = new Set(patientCompartmentParams(resource.resourceType));
  for (const p of R4_DEFINITIONS.searchParamsOf(resource.resourceType)) if (params.has(p.code)) addParam(rows, p, resource, keys);
  return compartmentPatients(resource, rows.reference);
}

function compartmentPatients(resource: Resource, refs: ReferenceRow[]): string[] {
  const ids = new Set<string>();
  if (resource.resourceType === "Patient" && resource.id) ids.add(resource.id);
  const params = new Set(patientCompartmentParams(resource.resourceType));
  for (const r of refs) if (params.has(r.code) && r.targetType === "Patient" && r.targetId) ids.add(r.targetId);
  return [...ids];
}
